package io.homa4j;

import io.homa4j.core.wire.SmallMessageAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link RpcContext} of one server RPC: the request's headers and deadline, and the guard of the single
 * answer, which it wraps in the response envelope and hands to the event loop.
 */
final class ServerCall implements RpcContext {
    private final ServerDispatcher dispatcher;
    private final AtomicBoolean replied = new AtomicBoolean();
    private volatile boolean cancelled;
    /** Guarded by this. */
    private List<Runnable> cancelCallbacks;
    final long handle;
    final InetSocketAddress client;
    final int requestBytes;
    final long deliveredNanos;
    private final Metadata metadata;
    private final long deadlineNanos;
    /** Handed to the handler and counted as pending until its answer reaches the loop; event loop only. */
    boolean dispatched;

    /**
     * @param requestBytes the request payload's length
     * @param header       the request envelope's header
     */
    ServerCall(ServerDispatcher dispatcher, long handle, InetSocketAddress client, int requestBytes,
               long deliveredNanos, Envelope.RequestHeader header) {
        this.dispatcher = dispatcher;
        this.handle = handle;
        this.client = client;
        this.requestBytes = requestBytes;
        this.deliveredNanos = deliveredNanos;
        this.metadata = header.metadata();
        long remaining = header.remainingNanos();
        this.deadlineNanos = remaining == Envelope.NO_DEADLINE ? Long.MAX_VALUE : deliveredNanos + remaining;
    }

    @Override
    public InetSocketAddress client() {
        return client;
    }

    @Override
    public Metadata metadata() {
        return metadata;
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public void reply(ByteBuf response) {
        reply(response, Metadata.EMPTY);
    }

    @Override
    public void reply(ByteBuf response, Metadata responseMetadata) {
        Objects.requireNonNull(response, "response");
        if (response.refCnt() <= 0) {
            // Checked before the reply counts as given: the handler's exception then answers HANDLER_ERROR.
            throw new IllegalArgumentException("the response buffer was already released");
        }
        if (responseMetadata == null) {
            ReferenceCountUtil.release(response);
            throw new NullPointerException("metadata");
        }
        int length = response.readableBytes();
        if (length > dispatcher.maxResponseBytes()) {
            // The engine's own limit leaves room for the envelope, so it would carry this; the caller is told
            // MESSAGE_TOO_LARGE, as for a request that is too long, and the reply counts as given.
            ReferenceCountUtil.release(response);
            claim(null);
            sendFailure(Envelope.Outcome.RESPONSE_TOO_LARGE, 0, Metadata.EMPTY, "response of " + length
                    + " bytes exceeds the server's maxMessageBytes " + dispatcher.maxResponseBytes());
            return;
        }
        ByteBuf message;
        try {
            message = Envelope.response(SmallMessageAllocator.INSTANCE, responseMetadata, response);
        } catch (IllegalReferenceCountException releasedMeanwhile) {
            // Released by another thread after the check above: refused like a released buffer, before the reply
            // counts as given, so the handler's exception still answers HANDLER_ERROR.
            throw new IllegalArgumentException("the response buffer was released while replying",
                    releasedMeanwhile);
        }
        claim(message);
        dispatcher.sendResponse(this, message, length);
    }

    @Override
    public void reply(byte[] response) {
        Objects.requireNonNull(response, "response");
        reply(Unpooled.wrappedBuffer(response));
    }

    @Override
    public void fail(String message) {
        Objects.requireNonNull(message, "message");
        claim(null);
        dispatcher.sendError(this, message);
    }

    @Override
    public void fail(int status, String message, Metadata responseMetadata) {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(responseMetadata, "metadata");
        if (status == 0) {
            throw new IllegalArgumentException("status 0 means success; reply instead");
        }
        claim(null);
        sendFailure(Envelope.Outcome.APPLICATION_ERROR, status, responseMetadata, message);
    }

    /** Takes the single answer; releases {@code response} (may be null) and throws when it was taken. */
    private void claim(ByteBuf response) {
        if (!replied.compareAndSet(false, true)) {
            ReferenceCountUtil.release(response);
            throw new IllegalStateException("this RPC was already replied to");
        }
    }

    /** Fails the RPC (HANDLER_ERROR) unless a reply was given; for the endpoint's own error paths. */
    boolean failIfUnreplied(String message) {
        if (replied.compareAndSet(false, true)) {
            dispatcher.sendError(this, message);
            return true;
        }
        return false;
    }

    /** Refuses the request without running the handler (an overloaded or stopping server). */
    void refuse(Envelope.Outcome why, String message) {
        if (replied.compareAndSet(false, true)) {
            sendFailure(why, 0, Metadata.EMPTY, message);
        }
    }

    /** Sends the failure envelope {@code why} (with its status, metadata and description) as the answer. */
    private void sendFailure(Envelope.Outcome why, int status, Metadata responseMetadata, String description) {
        dispatcher.sendResponse(this, Envelope.failure(SmallMessageAllocator.INSTANCE, why, status, responseMetadata,
                description), -1);
    }

    @Override
    public boolean isReplied() {
        return replied.get();
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void onCancel(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (this) {
            if (!cancelled) {
                if (cancelCallbacks == null) {
                    cancelCallbacks = new ArrayList<>(1);
                }
                cancelCallbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    /** Marks the RPC cancelled and runs the callbacks registered so far; once. Event loop. */
    void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = cancelCallbacks;
            cancelCallbacks = null;
        }
        if (toRun == null) {
            return;
        }
        for (Runnable callback : toRun) {
            try {
                callback.run();
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(ServerCall.class).warn("an RpcContext.onCancel callback threw (request from {})",
                        client, e);
            }
        }
    }

    @Override
    public String toString() {
        return "RpcContext{client=" + client + ", replied=" + replied.get() + '}';
    }
}
