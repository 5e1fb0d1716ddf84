package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The future of one client call. Completing it from outside (cancel, complete, completeExceptionally, orTimeout)
 * aborts the RPC in the engine, so abandoned calls never hold state; blocking on it from the endpoint's own
 * event loop throws instead of deadlocking. The call holds a place in the endpoint's {@link CallWindow} from its
 * creation until the future completes, however it completes.
 *
 * <p>The endpoint completes it on the event loop, or hands the completion to the endpoint's callback executor
 * when one was configured, so that the application's callbacks run there.
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
    /** Whether the call took a place in the window (it did unless the window was full); set before it escapes. */
    private volatile boolean holdsPlace;

    PendingCall(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
        this.table = table;
        this.server = server;
        this.requestBytes = requestBytes;
        this.startNanos = startNanos;
    }

    /**
     * Completes with {@code response} (its reader index at the payload) and the response's headers, taking
     * ownership. False (response released) when the future was already
     * done; true when it completed, or when the completion was handed to the callback executor (a response that
     * then finds the future done is released there).
     */
    abstract boolean deliver(ByteBuf response, Metadata metadata);

    /** Completes exceptionally on the engine's behalf; false when already done (see {@link #deliver}). */
    final boolean fail(Throwable cause) {
        return completeOnBehalf(() -> ended(super.completeExceptionally(cause)));
    }

    /** Completes with {@code value}; {@code ifDone} runs when the future turns out to be done already. */
    final boolean deliverValue(T value, Runnable ifDone) {
        return completeOnBehalf(() -> {
            boolean completed = ended(super.complete(value));
            if (!completed) {
                ifDone.run();
            }
            return completed;
        });
    }

    /**
     * Runs {@code completion} on the callback executor, or here when there is none (or the future is done
     * already, or the executor refuses: an application that shut its executor down still gets its futures
     * completed). Returns what the completion returned, or true when it was handed to the executor.
     */
    private boolean completeOnBehalf(BooleanSupplier completion) {
        Executor executor = table.callbackExecutor();
        if (executor == null || isDone()) {
            return completion.getAsBoolean();
        }
        try {
            executor.execute(completion::getAsBoolean);
        } catch (RejectedExecutionException shutDown) {
            return completion.getAsBoolean();
        }
        return true;
    }

    /** Notes that the call took a place in the window, to give back when it completes. */
    final void holdPlace() {
        holdsPlace = true;
    }

    /** Gives the window place back when {@code completed}; returns it. */
    private boolean ended(boolean completed) {
        if (completed && holdsPlace) {
            table.window().release();
        }
        return completed;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = ended(super.cancel(mayInterruptIfRunning));
        if (cancelled) {
            table.abandon(this);
        }
        return cancelled;
    }

    @Override
    public boolean complete(T value) {
        boolean completed = ended(super.complete(value));
        if (completed) {
            table.abandon(this);
        }
        return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean completed = ended(super.completeExceptionally(ex));
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
        boolean deliver(ByteBuf response, Metadata metadata) {
            return deliverValue(response, response::release);
        }
    }

    /** Responds with a byte[] copy; the ByteBuf is released here. */
    static final class OfBytes extends PendingCall<byte[]> {
        OfBytes(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
            super(table, server, requestBytes, startNanos);
        }

        @Override
        boolean deliver(ByteBuf response, Metadata metadata) {
            byte[] bytes;
            try {
                bytes = ByteBufUtil.getBytes(response);
            } finally {
                response.release();
            }
            return deliverValue(bytes, () -> { });
        }
    }

    /** Responds with the payload and the response's headers; the caller owns the {@link RpcResponse}. */
    static final class OfResponse extends PendingCall<RpcResponse> {
        OfResponse(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos) {
            super(table, server, requestBytes, startNanos);
        }

        @Override
        boolean deliver(ByteBuf response, Metadata metadata) {
            return deliverValue(new RpcResponse(response, metadata), response::release);
        }
    }
}
