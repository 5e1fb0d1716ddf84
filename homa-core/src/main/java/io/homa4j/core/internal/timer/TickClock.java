package io.homa4j.core.internal.timer;

/**
 * When the next timer tick is due. Ticks run only while there is state to watch (armed), and a caller that
 * polls late gets one tick, not a burst of catch-up ticks: the silence a tick counts is the engine's, and an
 * engine that was not polled did not look at its packets either. Engine thread only.
 *
 * <p>A tick may run up to {@link #latenessNanos()} late without changing how many ticks a second of silence
 * counts: the next tick stays on the grid ({@code due + tickNanos}), so a late tick is followed by an early one.
 * A driver whose loop turns come often anyway uses that lateness to run the tick in a turn it makes for packets
 * rather than wake for it ({@link io.homa4j.core.PacketDriven#wakeByNanos()}).
 *
 * <p>When nothing can happen for several ticks (every RPC left is a response waiting for its ACK, whose next
 * NEED_ACK is ticks away), a tick may be scheduled that many ticks ahead ({@link #ticked(long, boolean, int)}):
 * it then stands for all of them ({@link #elapsedTicks()}), so silence is counted as before while a quiet host is
 * not woken for ticks that would only count it. New state ({@link #arm}) brings the next tick back to one tick
 * away.
 */
public final class TickClock {
    /**
     * The share of a tick by which a tick may run late. Below one tick with room for a late event-loop timer
     * (a fraction of a millisecond on a loaded VM, {@code PacerTimerSlack}), so that a tick run at the end of its
     * lateness still keeps the grid at the default 1 ms tick.
     */
    static final double LATENESS_SHARE_OF_TICK = 0.75;

    private final long tickNanos;
    private final long latenessNanos;
    private long nextTickNanos = Long.MAX_VALUE;
    /** The grid point the next tick counts its ticks from: where the last tick was due, or where arming began. */
    private long countsFromNanos;

    public TickClock(long tickNanos) {
        this.tickNanos = tickNanos;
        this.latenessNanos = (long) (tickNanos * LATENESS_SHARE_OF_TICK);
    }

    /**
     * Makes sure a tick is due within one tick: schedules one when none is, and brings a tick scheduled further
     * ahead (see {@link #ticked(long, boolean, int)}) back to one tick from now, as new state is watched every tick.
     */
    public void arm(long nowNanos) {
        if (nextTickNanos == Long.MAX_VALUE) {
            nextTickNanos = nowNanos + tickNanos;
            countsFromNanos = nowNanos;
        } else if (nextTickNanos > nowNanos + tickNanos) {
            nextTickNanos = nowNanos + tickNanos;
        }
    }

    /**
     * Moves the next tick to {@code ticksAhead} ticks from the grid point it counts from, when that is later than
     * it is due now: the watched state turned out to need no look before then (the last RPC became a response
     * that only waits for its ACK). It then stands for that many ticks ({@link #elapsedTicks()}). Never brings a
     * tick closer: that is {@link #arm}'s job.
     *
     * @return whether the tick moved
     */
    public boolean stretch(int ticksAhead) {
        return stretchFrom(countsFromNanos, ticksAhead);
    }

    /**
     * {@link #stretch(int)} for state that appeared after the grid point the next tick counts from (an RPC no tick
     * has looked at yet): its ticks count from {@code nowNanos}, which becomes the grid point. Counted from the old
     * grid point, a tick that {@link #arm} brought back from far ahead would credit the new state with ticks that
     * passed before it existed.
     *
     * @return whether the tick moved
     */
    public boolean stretchFromNow(int ticksAhead, long nowNanos) {
        return stretchFrom(nowNanos, ticksAhead);
    }

    /** Moves the next tick to {@code ticksAhead} ticks from {@code gridNanos}, which it then counts from. */
    private boolean stretchFrom(long gridNanos, int ticksAhead) {
        if (nextTickNanos == Long.MAX_VALUE || ticksAhead <= 1) {
            return false;
        }
        long stretched = gridNanos + ticksAhead * tickNanos;
        if (stretched <= nextTickNanos) {
            return false;
        }
        nextTickNanos = stretched;
        countsFromNanos = gridNanos;
        return true;
    }

    /** Stops the ticks (nothing to watch); the next {@link #arm} starts them afresh. */
    public void disarm() {
        nextTickNanos = Long.MAX_VALUE;
    }

    /** Whether a tick is due at {@code nowNanos}. */
    public boolean due(long nowNanos) {
        return nowNanos >= nextTickNanos;
    }

    /** Records that a tick ran; {@code stillNeeded} keeps the clock armed, the next tick one tick on. */
    public void ticked(long nowNanos, boolean stillNeeded) {
        ticked(nowNanos, stillNeeded, 1);
    }

    /**
     * Records that a tick ran; {@code stillNeeded} keeps the clock armed, and the next tick comes
     * {@code ticksAhead} ticks on (at least one): the watched state needs no look before then.
     */
    public void ticked(long nowNanos, boolean stillNeeded, int ticksAhead) {
        if (!stillNeeded) {
            nextTickNanos = Long.MAX_VALUE;
            return;
        }
        long ahead = Math.max(1, ticksAhead) * tickNanos;
        nextTickNanos += ahead;
        if (nextTickNanos <= nowNanos) {
            nextTickNanos = nowNanos + ahead; // a late tick: no catch-up, the grid starts again from now
        }
        countsFromNanos = nextTickNanos - ahead;
    }

    /**
     * How many ticks the due tick stands for: one, or more when it was scheduled further ahead; rounded, as a
     * tick brought back by {@link #arm} lies off the grid.
     */
    public int elapsedTicks() {
        if (nextTickNanos == Long.MAX_VALUE) {
            return 1;
        }
        long ticks = (nextTickNanos - countsFromNanos + tickNanos / 2) / tickNanos;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ticks));
    }

    /** Time of the next tick, or Long.MAX_VALUE when disarmed. */
    public long nextTickNanos() {
        return nextTickNanos;
    }

    /** The latest time the next tick should run, or Long.MAX_VALUE when disarmed. */
    public long latestTickNanos() {
        return nextTickNanos == Long.MAX_VALUE ? Long.MAX_VALUE : nextTickNanos + latenessNanos;
    }

    /** How late a tick may run and keep the grid. */
    public long latenessNanos() {
        return latenessNanos;
    }
}
