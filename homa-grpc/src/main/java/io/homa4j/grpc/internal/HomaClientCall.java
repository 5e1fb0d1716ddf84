package io.homa4j.grpc.internal;

import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.homa4j.CallOptions;
import io.homa4j.HomaEndpoint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One unary gRPC call as one Homa RPC. {@code halfClose} sends the request; the response (or the Homa failure)
 * ends the call through the listener, on the call's executor. {@code cancel} aborts the Homa RPC, which tells the
 * server, whose {@code Context} is then cancelled.
 *
 * <p>Threading: the application calls {@code start}/{@code sendMessage}/{@code halfClose} from one thread at a time,
 * as gRPC requires; {@code cancel} may come from any thread. The one answer (response, failure or cancellation) is
 * claimed once with {@link #closed}.
 */
final class HomaClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final HomaChannel channel;
    private final MethodDescriptor<ReqT, RespT> method;
    private final io.grpc.CallOptions callOptions;
    private final SerializingExecutor callbacks;
    private final Context context;
    private final AtomicBoolean closed = new AtomicBoolean();
    private Listener<RespT> listener;
    private Metadata headers;
    /** The serialized request between sendMessage and halfClose; whoever takes it out releases or sends it. */
    private final AtomicReference<ByteBuf> request = new AtomicReference<>();
    /** True once the channel counted this call in flight (callEnded is owed). */
    private volatile boolean counted;
    private boolean gzip;
    private boolean sentMessage;
    private int requested;
    private RespT pendingResponse;
    private Metadata pendingTrailers;
    private Status pendingStatus;
    private volatile CompletableFuture<ByteBuf> inFlight;
    private final Context.CancellationListener contextCancelled = this::onContextCancelled;

    HomaClientCall(HomaChannel channel, MethodDescriptor<ReqT, RespT> method, io.grpc.CallOptions callOptions,
                   Executor executor) {
        this.channel = channel;
        this.method = method;
        this.callOptions = callOptions;
        this.callbacks = new SerializingExecutor(executor);
        this.context = Context.current();
    }

    @Override
    public void start(Listener<RespT> responseListener, Metadata headers) {
        if (listener != null) {
            throw new IllegalStateException("already started");
        }
        this.listener = java.util.Objects.requireNonNull(responseListener, "responseListener");
        this.headers = java.util.Objects.requireNonNull(headers, "headers");
        String compressor = callOptions.getCompressor();
        if (compressor != null && !MessageCodec.IDENTITY.equals(compressor)) {
            if (!MessageCodec.GZIP.equals(compressor)) {
                close(Status.INTERNAL.withDescription("Unable to find compressor by name " + compressor
                        + " (homa-grpc supports gzip)"), new Metadata());
                return;
            }
            gzip = true;
        }
        if (!channel.callStarted()) {
            close(Status.UNAVAILABLE.withDescription("Channel shutdown invoked"), new Metadata());
            return;
        }
        counted = true;
        if (context.isCancelled()) {
            close(cancelledBy(context), new Metadata());
            return;
        }
        Deadline deadline = effectiveDeadline();
        if (deadline != null && deadline.isExpired()) {
            close(Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded before the call started: "
                    + deadline), new Metadata());
            return;
        }
        context.addListener(contextCancelled, Runnable::run);
    }

    private Deadline effectiveDeadline() {
        Deadline callDeadline = callOptions.getDeadline();
        Deadline contextDeadline = context.getDeadline();
        if (callDeadline == null) {
            return contextDeadline;
        }
        return contextDeadline == null ? callDeadline : callDeadline.minimum(contextDeadline);
    }

    @Override
    public void request(int numMessages) {
        if (numMessages < 0) {
            throw new IllegalArgumentException("numMessages must be non-negative");
        }
        callbacks.execute(() -> {
            requested += numMessages;
            deliver();
        });
    }

    @Override
    public void sendMessage(ReqT message) {
        checkStarted();
        if (closed.get()) {
            return;
        }
        if (sentMessage) {
            throw new IllegalStateException("a unary call sends one message");
        }
        sentMessage = true;
        try {
            Integer maxOutbound = callOptions.getMaxOutboundMessageSize();
            request.set(MessageCodec.serialize(ByteBufAllocator.DEFAULT, method.getRequestMarshaller(), message,
                    gzip, maxOutbound == null ? Integer.MAX_VALUE : maxOutbound));
            if (closed.get()) {
                releaseRequest(); // cancelled meanwhile
            }
        } catch (StatusRuntimeException e) {
            cancelWith(e.getStatus());
        } catch (RuntimeException e) {
            cancelWith(Status.CANCELLED.withDescription("Failed to stream message").withCause(e));
        }
    }

    @Override
    public void halfClose() {
        checkStarted();
        if (closed.get()) {
            releaseRequest();
            return;
        }
        ByteBuf message = request.getAndSet(null);
        if (message == null) {
            if (!sentMessage) {
                cancelWith(Status.INTERNAL.withDescription("a unary call needs a request message"));
            }
            return; // or cancelled meanwhile
        }
        ByteBuf frame;
        try {
            if (gzip) {
                headers.put(HomaChannel.MESSAGE_ENCODING, MessageCodec.GZIP);
            }
            frame = GrpcFrame.encodeRequest(ByteBufAllocator.DEFAULT,
                    method.getFullMethodName().getBytes(StandardCharsets.UTF_8), headers, gzip, message);
        } catch (IllegalArgumentException e) {
            cancelWith(Status.INTERNAL.withDescription("request headers do not fit: " + e.getMessage()));
            return;
        }
        Deadline deadline = effectiveDeadline();
        CallOptions homaOptions = deadline == null ? CallOptions.NO_DEADLINE
                : CallOptions.deadlineNanos(System.nanoTime() + deadline.timeRemaining(TimeUnit.NANOSECONDS));
        HomaEndpoint endpoint = channel.endpoint();
        CompletableFuture<ByteBuf> future;
        try {
            future = endpoint.call(channel.server(), frame, homaOptions);
        } catch (RuntimeException e) {
            close(HomaStatus.of(e), new Metadata());
            return;
        }
        inFlight = future;
        future.whenComplete(this::onAnswer);
        if (closed.get()) {
            future.cancel(false); // cancelled while the call was being sent
        }
    }

    /** The Homa call ended: event loop (or this thread, when it failed at once). */
    private void onAnswer(ByteBuf frame, Throwable failure) {
        if (failure != null) {
            close(HomaStatus.of(failure), new Metadata());
            return;
        }
        if (closed.get()) {
            frame.release(); // cancelled meanwhile
            return;
        }
        callbacks.execute(() -> {
            try {
                decodeAnswer(frame);
            } finally {
                frame.release();
            }
        });
    }

    /** Decodes the response frame (callback executor) and ends the call with it. */
    private void decodeAnswer(ByteBuf frame) {
        GrpcFrame response = new GrpcFrame();
        String problem = response.wrap(frame);
        if (problem == null && response.kind() != GrpcFrame.KIND_RESPONSE) {
            problem = "the server answered with a request frame";
        }
        if (problem != null) {
            answer(Status.INTERNAL.withDescription("malformed response from the server: " + problem), null,
                    new Metadata(), null);
            return;
        }
        long metadataSize = response.headersSize() + response.trailersSize();
        if (metadataSize > channel.maxInboundMetadataSize()) {
            answer(Status.INTERNAL.withDescription("response metadata of " + metadataSize
                    + " bytes exceeds the limit " + channel.maxInboundMetadataSize()), null, new Metadata(), null);
            return;
        }
        Metadata responseHeaders;
        Metadata trailers;
        try {
            responseHeaders = response.headers();
            trailers = response.trailers();
        } catch (GrpcFrame.MalformedFrameException e) {
            answer(Status.INTERNAL.withDescription("malformed response from the server: " + e.getMessage()), null,
                    new Metadata(), null);
            return;
        }
        Status status = Status.fromCodeValue(response.statusCode());
        if (response.textLength() > 0) {
            status = status.withDescription(response.text());
        }
        if (!status.isOk()) {
            answer(status, responseHeaders, trailers, null);
            return;
        }
        if (!response.hasMessage()) {
            answer(Status.INTERNAL.withDescription("No value received for unary call"), responseHeaders, trailers,
                    null);
            return;
        }
        RespT message;
        try {
            message = MessageCodec.parse(method.getResponseMarshaller(), response.message(), response.isGzip(),
                    channel.maxInboundMessageSize(callOptions));
        } catch (StatusRuntimeException e) {
            answer(e.getStatus(), responseHeaders, new Metadata(), null);
            return;
        }
        answer(Status.OK, responseHeaders, trailers, message);
    }

    /** Ends the call with the server's answer unless it ended already (callback executor). */
    private void answer(Status status, Metadata responseHeaders, Metadata trailers, RespT message) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        finish();
        if (responseHeaders != null) {
            listener.onHeaders(responseHeaders);
        }
        pendingResponse = message;
        pendingTrailers = trailers;
        pendingStatus = status;
        deliver();
    }

    /** Hands the response and the close to the listener once it has asked for a message (callback executor). */
    private void deliver() {
        if (pendingStatus == null) {
            return;
        }
        if (pendingResponse != null) {
            if (requested == 0) {
                return;
            }
            requested--;
            RespT message = pendingResponse;
            pendingResponse = null;
            listener.onMessage(message);
        }
        Status status = pendingStatus;
        pendingStatus = null;
        listener.onClose(status, pendingTrailers);
    }

    @Override
    public void cancel(String message, Throwable cause) {
        if (message == null && cause == null) {
            message = "Call cancelled without message";
        }
        Status status = Status.CANCELLED.withDescription(message);
        cancelWith(cause != null ? status.withCause(cause) : status);
    }

    private void onContextCancelled(Context cancelled) {
        cancelWith(cancelledBy(cancelled));
    }

    private static Status cancelledBy(Context context) {
        if (context.getDeadline() != null && context.getDeadline().isExpired()) {
            return Status.DEADLINE_EXCEEDED.withDescription("context deadline exceeded");
        }
        Throwable cause = context.cancellationCause();
        Status status = cause == null ? Status.UNKNOWN : Status.fromThrowable(cause);
        return status.getCode() == Status.Code.UNKNOWN
                ? Status.CANCELLED.withDescription("context cancelled").withCause(cause) : status;
    }

    /** Ends the call with {@code status} and aborts its Homa RPC, which tells the server. */
    private void cancelWith(Status status) {
        CompletableFuture<ByteBuf> future = inFlight;
        if (listener == null) {
            closed.set(true); // cancelled before start: nothing to tell
            return;
        }
        close(status, new Metadata());
        if (future != null) {
            future.cancel(false);
        }
    }

    /** Ends the call with a failure, once: the first answer wins. */
    private void close(Status status, Metadata trailers) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        finish();
        callbacks.execute(() -> {
            pendingResponse = null;
            pendingStatus = null;
            listener.onClose(status, trailers);
        });
    }

    private void finish() {
        context.removeListener(contextCancelled);
        releaseRequest();
        if (counted) {
            channel.callEnded();
        }
    }

    private void releaseRequest() {
        ReferenceCountUtil.release(request.getAndSet(null));
    }

    private void checkStarted() {
        if (listener == null) {
            throw new IllegalStateException("not started");
        }
    }

    @Override
    public boolean isReady() {
        return !closed.get();
    }

    @Override
    public String toString() {
        return "HomaClientCall{" + method.getFullMethodName() + " to " + channel.server() + '}';
    }
}
