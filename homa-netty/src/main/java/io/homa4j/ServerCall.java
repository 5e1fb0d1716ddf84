package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/** The {@link RpcContext} of one server RPC: guards the single reply and hands it to the event loop. */
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
    /** Handed to the handler and counted as pending until its answer reaches the loop; event loop only. */
    boolean dispatched;

    ServerCall(ServerDispatcher dispatcher, long handle, InetSocketAddress client, int requestBytes, long deliveredNanos) {
        this.dispatcher = dispatcher;
        this.handle = handle;
        this.client = client;
        this.requestBytes = requestBytes;
        this.deliveredNanos = deliveredNanos;
    }

    @Override
    public InetSocketAddress client() {
        return client;
    }

    @Override
    public void reply(ByteBuf response) {
        Objects.requireNonNull(response, "response");
        if (response.refCnt() <= 0) {
            // Checked before the reply counts as given: the handler's exception then answers HANDLER_ERROR.
            throw new IllegalArgumentException("the response buffer was already released");
        }
        if (!replied.compareAndSet(false, true)) {
            ReferenceCountUtil.release(response);
            throw new IllegalStateException("this RPC was already replied to");
        }
        dispatcher.sendReply(this, response);
    }

    @Override
    public void reply(byte[] response) {
        Objects.requireNonNull(response, "response");
        reply(Unpooled.wrappedBuffer(response));
    }

    @Override
    public void fail(String message) {
        Objects.requireNonNull(message, "message");
        if (!replied.compareAndSet(false, true)) {
            throw new IllegalStateException("this RPC was already replied to");
        }
        dispatcher.sendError(this, message);
    }

    /** Fails the RPC unless a reply was given; for the endpoint's own error paths. */
    boolean failIfUnreplied(String message) {
        if (replied.compareAndSet(false, true)) {
            dispatcher.sendError(this, message);
            return true;
        }
        return false;
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
