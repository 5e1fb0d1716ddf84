package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of one client call. Completing it from outside (cancel, complete, completeExceptionally, orTimeout)
 * aborts the RPC in the engine, so abandoned calls never hold state; blocking on it from the endpoint's own
 * event loop throws instead of deadlocking.
 *
 * @param <T> the response type: the ByteBuf itself, or a byte[] copy of it
 */
abstract class PendingCall<T> extends CompletableFuture<T> {
    static final long NO_ID = RpcObserver.NO_RPC_ID;

    private final ClientCallTable table;
    final InetSocketAddress server;
    final int requestBytes;
    final long startNanos;
    /** The engine's RPC id; written and read on the event loop only. */
    long rpcId = NO_ID;

    PendingCall(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
        this.table = table;
        this.server = server;
        this.requestBytes = requestBytes;
        this.startNanos = startNanos;
    }

    /** Completes with {@code response} (taking ownership); false (response released) when already done. */
    abstract boolean deliver(ByteBuf response);

    /** Completes exceptionally on the engine's behalf; false when already done. */
    final boolean fail(Throwable cause) {
        return super.completeExceptionally(cause);
    }

    final boolean deliverValue(T value) {
        return super.complete(value);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            table.abandon(this);
        }
        return cancelled;
    }

    @Override
    public boolean complete(T value) {
        boolean completed = super.complete(value);
        if (completed) {
            table.abandon(this);
        }
        return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean completed = super.completeExceptionally(ex);
        if (completed) {
            table.abandon(this);
        }
        return completed;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        checkNotBlockingLoop();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        checkNotBlockingLoop();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        checkNotBlockingLoop();
        return super.join();
    }

    private void checkNotBlockingLoop() {
        if (!isDone() && table.inEventLoop()) {
            throw new IllegalStateException("blocking on a call's future on the endpoint's event loop would "
                    + "deadlock; chain a callback (thenAccept, whenComplete) instead");
        }
    }

    /** Responds with the ByteBuf itself; the caller owns it. */
    static final class OfBuf extends PendingCall<ByteBuf> {
        OfBuf(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
            super(table, server, requestBytes, startNanos);
        }

        @Override
        boolean deliver(ByteBuf response) {
            if (deliverValue(response)) {
                return true;
            }
            response.release();
            return false;
        }
    }

    /** Responds with a byte[] copy; the ByteBuf is released here. */
    static final class OfBytes extends PendingCall<byte[]> {
        OfBytes(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
            super(table, server, requestBytes, startNanos);
        }

        @Override
        boolean deliver(ByteBuf response) {
            byte[] bytes;
            try {
                bytes = ByteBufUtil.getBytes(response);
            } finally {
                response.release();
            }
            return deliverValue(bytes);
        }
    }
}
