package io.homa4j.transport.internal;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.ThreadExecutorMap;

/**
 * Spin before sleep for an endpoint's own event loop: after a turn that left a call waiting for its response
 * ({@link io.homa4j.core.PacketDriven#awaitingPeer()}), the loop polls its sockets without waiting
 * (epoll_wait or select with timeout 0) for up to {@link #spinNanos} before it sleeps in the kernel. A response
 * that comes within that time is read about a microsecond after it arrives, without the wake-up of a sleeping
 * thread (tens of microseconds on a VM, more when the CPU went idle), which a loop that sleeps at once pays for
 * every response.
 *
 * <p>What it costs: a loop with no call waiting (an idle endpoint, a server between requests) never spins, so it
 * costs nothing while idle. A call costs at most {@code spinNanos} of CPU on the caller's loop, the time until
 * its response or the end of the spin. The spin stops at once for a task from another thread (the loop's task
 * queue is checked each round, since a spinning loop gets no eventfd wake-up), and before the engine's next
 * timer ({@link EngineDriver} passes its armed wake-up), so the pacer and timers run on time.
 *
 * <p>Threading: the strategy runs on its loop's thread and reaches the engine driver on the same thread through
 * a thread-local set in the loop's first turn; {@link #spinAfterTurn} is a no-op on other loops.
 */
final class IdleSpin {
    private static final FastThreadLocal<IdleSpin> CURRENT = new FastThreadLocal<>();

    private final long spinNanos;
    /** The loop, to see tasks handed to it while spinning; found in the first turn. */
    private SingleThreadEventExecutor loop;
    private boolean installed;
    /** Spin until this time, then sleep; {@link #NOT_SPINNING} when the last turn asked for no spin. */
    private long spinUntilNanos = NOT_SPINNING;
    private static final long NOT_SPINNING = Long.MIN_VALUE;

    private IdleSpin(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    /** A select strategy per loop (Netty asks the factory once per loop) that spins up to {@code spinNanos}. */
    static SelectStrategyFactory spinBeforeSleep(long spinNanos) {
        if (spinNanos <= 0) {
            throw new IllegalArgumentException("spinNanos must be positive: " + spinNanos);
        }
        return () -> {
            IdleSpin spin = new IdleSpin(spinNanos);
            return spin::strategy;
        };
    }

    /**
     * Called by the engine's driver at the end of each turn, on its loop: spin from {@code nowNanos} (for at most
     * the loop's spin time, and not past {@code notAfterNanos}, the engine's next wake-up) when
     * {@code awaitingPeer}, else sleep at once. Nothing happens on a loop without this strategy.
     */
    static void spinAfterTurn(boolean awaitingPeer, long nowNanos, long notAfterNanos) {
        IdleSpin spin = CURRENT.getIfExists();
        if (spin != null) {
            spin.spinUntilNanos = awaitingPeer ? Math.min(nowNanos + spin.spinNanos, notAfterNanos) : NOT_SPINNING;
        }
    }

    private int strategy(io.netty.util.IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (!installed) {
            installed = true;
            CURRENT.set(this);
            EventExecutor executor = ThreadExecutorMap.currentExecutor();
            loop = executor instanceof SingleThreadEventExecutor single ? single : null;
        }
        if (hasTasks) {
            return selectNow.get();
        }
        long until = spinUntilNanos;
        if (until == NOT_SPINNING || loop == null) {
            return SelectStrategy.SELECT;
        }
        for (;;) {
            int ready = selectNow.get();
            if (ready > 0) {
                return ready;
            }
            if (loop.pendingTasks() > 0) {
                return 0; // no socket ready: the loop runs its tasks and comes back
            }
            if (System.nanoTime() - until >= 0) {
                spinUntilNanos = NOT_SPINNING; // a turn that still waits arms the next spin
                return SelectStrategy.SELECT;
            }
            Thread.onSpinWait();
        }
    }
}
