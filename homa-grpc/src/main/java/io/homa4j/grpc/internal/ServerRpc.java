package io.homa4j.grpc.internal;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.homa4j.RpcContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One server-side unary call: the gRPC {@link ServerCall} the application's handler answers through, over the
 * Homa RPC's {@link RpcContext}.
 *
 * <p>The call runs in a {@link Context} of its own, with the caller's deadline, cancelled when the Homa RPC is
 * (the client cancelled, its deadline passed, the endpoint closed: {@link RpcContext#onCancel}), when the deadline
 * passes here, and when the call completes, as gRPC-java's server does. The listener's callbacks run one at a time
 * on the server's executor ({@link SerializingExecutor}).
 *
 * <p>Ownership: the request message buffer (a retained slice of the Homa request) is released once parsed, or
 * when the call ends first.
 */
final class ServerRpc<ReqT, RespT> extends ServerCall<ReqT, RespT> {
    private final HomaServer server;
    private final RpcContext ctx;
    private final ServerMethodDefinition<ReqT, RespT> method;
    private final Metadata headers;
    private final boolean requestGzip;
    private ByteBuf requestBytes;
    private SerializingExecutor callbacks;
    private Context.CancellableContext context;
    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int CANCELLED = 2;
    /** OPEN until the handler closes the call (CLOSED) or it is cancelled (CANCELLED), whichever comes first. */
    private final AtomicInteger state = new AtomicInteger(OPEN);
    private Listener<ReqT> listener;
    private int requested;
    private ReqT pendingRequest;
    private boolean halfClosePending;
    private Metadata responseHeaders;
    private ByteBuf responseMessage;
    private boolean responseGzip;

    @SuppressWarnings("unchecked")
    ServerRpc(HomaServer server, RpcContext ctx, ServerMethodDefinition<?, ?> method, Metadata headers,
              ByteBuf requestBytes, boolean requestGzip) {
        this.server = server;
        this.ctx = ctx;
        this.method = (ServerMethodDefinition<ReqT, RespT>) method;
        this.headers = headers;
        this.requestBytes = requestBytes;
        this.requestGzip = requestGzip;
    }

    /** Starts the call on {@code executor} (null: here, on the event loop). */
    void start(Executor executor) {
        callbacks = new SerializingExecutor(executor != null ? executor : Runnable::run);
        long deadline = ctx.deadlineNanos();
        context = deadline == Long.MAX_VALUE ? Context.ROOT.withCancellation()
                : Context.ROOT.withDeadlineAfter(deadline - System.nanoTime(), TimeUnit.NANOSECONDS,
                server.deadlines());
        context.addListener(this::onContextCancelled, Runnable::run);
        ctx.onCancel(() -> cancelByServer(Status.CANCELLED.withDescription("cancelled by the client")));
        callbacks.execute(this::run);
    }

    /** Parses the request and runs the handler up to its half-close (callback executor). */
    private void run() {
        if (state.get() != OPEN) {
            return; // cancelled (its deadline had passed, say) before the handler started; the bytes are released
        }
        ReqT request;
        try {
            request = MessageCodec.parse(method.getMethodDescriptor().getRequestMarshaller(), requestBytes,
                    requestGzip, server.maxInboundMessageSize());
        } catch (StatusRuntimeException e) {
            close(e.getStatus(), new Metadata());
            return;
        } finally {
            releaseRequestBytes();
        }
        if (state.get() != OPEN) {
            return; // cancelled before the handler started
        }
        Context previous = context.attach();
        try {
            listener = method.getServerCallHandler().startCall(this, headers);
            pendingRequest = request;
            halfClosePending = true;
            listener.onReady();
            deliver();
        } catch (RuntimeException | Error e) {
            applicationError(e);
        } finally {
            context.detach(previous);
        }
    }

    /** Hands the request and the half-close to the listener once it asked for a message. */
    private void deliver() {
        if (pendingRequest != null && requested > 0) {
            requested--;
            ReqT request = pendingRequest;
            pendingRequest = null;
            listener.onMessage(request);
        }
        if (pendingRequest == null && halfClosePending) {
            halfClosePending = false;
            listener.onHalfClose();
        }
    }

    /** A handler that threw: UNKNOWN, as gRPC-java answers (a status the handler meant goes to onError). */
    private void applicationError(Throwable e) {
        if (state.get() == OPEN) {
            close(Status.UNKNOWN.withDescription("Application error processing RPC").withCause(e), new Metadata());
        }
    }

    @Override
    public void request(int numMessages) {
        callbacks.execute(() -> {
            requested += numMessages;
            if (listener != null) {
                Context previous = context.attach();
                try {
                    deliver();
                } catch (RuntimeException | Error e) {
                    applicationError(e);
                } finally {
                    context.detach(previous);
                }
            }
        });
    }

    @Override
    public void sendHeaders(Metadata headers) {
        if (responseHeaders != null) {
            throw new IllegalStateException("sendHeaders has already been called");
        }
        responseHeaders = java.util.Objects.requireNonNull(headers, "headers");
    }

    @Override
    public void sendMessage(RespT message) {
        if (state.get() != OPEN) {
            return; // cancelled: the answer is no longer wanted
        }
        if (responseMessage != null) {
            throw new IllegalStateException("a unary call answers with one message");
        }
        responseMessage = MessageCodec.serialize(ByteBufAllocator.DEFAULT,
                method.getMethodDescriptor().getResponseMarshaller(), message, responseGzip, Integer.MAX_VALUE);
    }

    @Override
    public void close(Status status, Metadata trailers) {
        if (!state.compareAndSet(OPEN, CLOSED)) {
            ReferenceCountUtil.release(responseMessage);
            responseMessage = null;
            if (state.get() == CANCELLED) {
                return; // an answer after the cancellation: dropped, as gRPC-java drops it
            }
            throw new IllegalStateException("call already closed");
        }
        ByteBuf message = status.isOk() ? responseMessage : null;
        if (!status.isOk()) {
            ReferenceCountUtil.release(responseMessage);
        }
        responseMessage = null;
        try {
            ctx.reply(GrpcFrame.encodeResponse(ByteBufAllocator.DEFAULT, status, responseHeaders, trailers,
                    responseGzip, message));
        } catch (IllegalArgumentException unfit) {
            ctx.reply(GrpcFrame.encodeStatus(ByteBufAllocator.DEFAULT,
                    Status.INTERNAL.withDescription("response metadata does not fit: " + unfit.getMessage())));
        } catch (IllegalStateException repliedMeanwhile) {
            // The RPC was cancelled and answered between the flag and the reply: nothing more to send.
        }
        ended(false);
    }

    /**
     * Cancels the call from the server's side: the client went away, the deadline passed, the server stopped.
     * Answers {@code status} if nothing was answered (the client, if it still waits, hears it).
     */
    void cancelByServer(Status status) {
        if (!state.compareAndSet(OPEN, CANCELLED)) {
            return;
        }
        if (!ctx.isReplied()) {
            try {
                ctx.reply(GrpcFrame.encodeStatus(ByteBufAllocator.DEFAULT, status));
            } catch (IllegalStateException repliedMeanwhile) {
                // answered by the handler in the meantime
            }
        }
        ended(true);
    }

    private void onContextCancelled(Context cancelledContext) {
        if (state.get() != OPEN) {
            return;
        }
        boolean expired = context.getDeadline() != null && context.getDeadline().isExpired();
        cancelByServer(expired ? Status.DEADLINE_EXCEEDED.withDescription("deadline exceeded on the server")
                : Status.CANCELLED.withDescription("call cancelled"));
    }

    /** The call is over: the listener hears onComplete or onCancel, the context is cancelled. */
    private void ended(boolean wasCancelled) {
        server.callEnded(this);
        callbacks.execute(() -> {
            releaseRequestBytes();
            if (listener != null) {
                Context previous = context.attach();
                try {
                    if (wasCancelled) {
                        listener.onCancel();
                    } else {
                        listener.onComplete();
                    }
                } finally {
                    context.detach(previous);
                }
            }
            context.cancel(null);
        });
        if (wasCancelled) {
            context.cancel(null); // at once, not behind the handler still running: that is how it learns
        }
    }

    private void releaseRequestBytes() {
        ReferenceCountUtil.release(requestBytes);
        requestBytes = null;
    }

    @Override
    public boolean isCancelled() {
        return state.get() == CANCELLED || ctx.isCancelled();
    }

    @Override
    public void setCompression(String compressor) {
        if (MessageCodec.GZIP.equals(compressor)) {
            responseGzip = true;
        } else if (MessageCodec.IDENTITY.equals(compressor)) {
            responseGzip = false;
        } else {
            throw new IllegalArgumentException("Unable to find compressor by name " + compressor
                    + " (homa-grpc supports gzip)");
        }
    }

    @Override
    public boolean isReady() {
        return state.get() == OPEN;
    }

    @Override
    public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
        return method.getMethodDescriptor();
    }

    @Override
    public Attributes getAttributes() {
        return Attributes.newBuilder().set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, ctx.client()).build();
    }

    @Override
    public String getAuthority() {
        return null;
    }
}
