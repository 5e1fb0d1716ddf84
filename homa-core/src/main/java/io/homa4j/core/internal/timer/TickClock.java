package io.homa4j.core.internal.timer;

/**
 * When the next timer tick is due. Ticks run only while there is state to watch (armed), and a caller that
 * polls late gets one tick, not a burst of catch-up ticks: the silence a tick counts is the engine's, and an
 * engine that was not polled did not look at its packets either. Engine thread only.
 */
public final class TickClock {
    private final long tickNanos;
    private long nextTickNanos = Long.MAX_VALUE;

    public TickClock(long tickNanos) {
        this.tickNanos = tickNanos;
    }

    /** Makes sure a tick is scheduled (no-op when one already is). */
    public void arm(long nowNanos) {
        if (nextTickNanos == Long.MAX_VALUE) {
            nextTickNanos = nowNanos + tickNanos;
        }
    }

    /** Whether a tick is due at {@code nowNanos}. */
    public boolean due(long nowNanos) {
        return nowNanos >= nextTickNanos;
    }

    /** Records that a tick ran; {@code stillNeeded} keeps the clock armed. */
    public void ticked(long nowNanos, boolean stillNeeded) {
        if (!stillNeeded) {
            nextTickNanos = Long.MAX_VALUE;
            return;
        }
        nextTickNanos += tickNanos;
        if (nextTickNanos <= nowNanos) {
            nextTickNanos = nowNanos + tickNanos;
        }
    }

    /** Time of the next tick, or Long.MAX_VALUE when disarmed. */
    public long nextTickNanos() {
        return nextTickNanos;
    }
}
