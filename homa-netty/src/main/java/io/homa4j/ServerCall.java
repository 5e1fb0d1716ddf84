package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/** The {@link RpcContext} of one server RPC: guards the single reply and hands it to the event loop. */
final class ServerCall implements RpcContext {
    private final ServerDispatcher dispatcher;
    private final AtomicBoolean replied = new AtomicBoolean();
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
    public String toString() {
        return "RpcContext{client=" + client + ", replied=" + replied.get() + '}';
    }
}
