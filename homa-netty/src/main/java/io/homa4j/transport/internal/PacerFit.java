package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;

/**
 * Fits the pacer's queue bound to how late this event loop's timers actually fire, on links slow enough that
 * {@link PacerTimerSlack} holds several full packets in the host's queue.
 *
 * <p>That queue is what every GRANT and every short message the host sends waits behind, and at slow link rates
 * it is long: {@link PacerTimerSlack#MIN_QUEUED_PACKETS} full packets are 1.9 ms at 50 Mbit/s, against the
 * Linux module's 5 us. It is there so that the link stays busy while the loop's wake-up for the next packet comes
 * late; a loop whose timers fire within a fraction of a packet time needs far less. So the driver reports the
 * lateness of every timer wake-up ({@link #timerFired}), and the bound becomes one packet plus twice the lateness
 * estimate ({@code mean + 4 x mean deviation}, as TCP estimates its retransmission timeout), between
 * {@link #floorNanos()} and the bound {@link PacerTimerSlack} derived (the starting point, until the first
 * wake-up is measured). The wake lateness the pacer allows itself is half of what the bound holds beyond one packet,
 * less the lateness estimate, as {@link PacerTimerSlack} derives it from its fixed slack.
 *
 * <p>The floor is two full packets, and never below the timer slack nor the configured bound: on fast links,
 * where the timer slack is the bound already, nothing changes.
 *
 * <p>Threading: event loop only.
 */
public final class PacerFit {
    private final long packetNanos;
    private final long floorNanos;
    private final long ceilingNanos;
    /** The wake lateness the application configured, or -1 when it is derived from the bound. */
    private final long configuredWakeLatenessNanos;
    /** Bounds and wake latenesses change in steps of a quarter packet, so that jitter does not reach the engine. */
    private final long stepNanos;

    private boolean sampled;
    private long meanNanos;
    private long deviationNanos;
    private long boundNanos;
    private long wakeLatenessNanos;

    private PacerFit(long packetNanos, long floorNanos, long ceilingNanos, long configuredWakeLatenessNanos,
                     long startWakeLatenessNanos) {
        this.packetNanos = packetNanos;
        this.floorNanos = floorNanos;
        this.ceilingNanos = ceilingNanos;
        this.configuredWakeLatenessNanos = configuredWakeLatenessNanos;
        this.stepNanos = Math.max(1, packetNanos / 4);
        this.boundNanos = ceilingNanos;
        this.wakeLatenessNanos = startWakeLatenessNanos;
    }

    /**
     * The fit for an endpoint configured with {@code configured} whose engine runs {@code effective} (that
     * configuration after {@link PacerTimerSlack#apply} with {@code slackNanos}); null when there is nothing to
     * fit (the timer slack or the configured bound is already the larger bound, or the slack is off).
     */
    public static PacerFit forConfig(HomaConfig configured, HomaConfig effective, long slackNanos) {
        if (slackNanos <= 0) {
            return null;
        }
        long packetNanos = PacerTimerSlack.packetNanos(effective);
        long floor = Math.max(2 * packetNanos, Math.max(slackNanos, configured.pacerMaxQueueNanos()));
        long ceiling = effective.pacerMaxQueueNanos();
        if (floor >= ceiling) {
            return null;
        }
        long configuredLateness = configured.pacerWakeLatenessNanos() > 0 ? configured.pacerWakeLatenessNanos() : -1;
        return new PacerFit(packetNanos, floor, ceiling, configuredLateness, effective.pacerWakeLatenessNanos());
    }

    /**
     * A timer wake-up came {@code lateNanos} after the time it was armed for.
     *
     * @return true when the bound or the wake lateness changed (the engine must be told)
     */
    public boolean timerFired(long lateNanos) {
        if (lateNanos < 0) {
            throw new IllegalArgumentException("a timer does not fire early: " + lateNanos);
        }
        // A wake-up later than the full bound cannot be covered by any bound this fit sets; counted whole, one stall
        // of seconds (a JVM starting, a descheduled loop) would hold the bound at its ceiling for hundreds of
        // wake-ups, where one at the ceiling already raises it there at once.
        long late = Math.min(lateNanos, ceilingNanos);
        if (!sampled) {
            sampled = true;
            meanNanos = late;
            deviationNanos = late / 2;
        } else {
            long error = late - meanNanos;
            meanNanos += error / 8;
            deviationNanos += (Math.abs(error) - deviationNanos) / 4;
        }
        long lateness = meanNanos + 4 * deviationNanos;
        long bound = clamp(roundUp(packetNanos + 2 * lateness), floorNanos, ceilingNanos);
        long wake = configuredWakeLatenessNanos >= 0 ? Math.min(configuredWakeLatenessNanos, bound - 1)
                : roundDown(Math.max(0, (bound - packetNanos) / 2 - lateness));
        if (bound == boundNanos && wake == wakeLatenessNanos) {
            return false;
        }
        boundNanos = bound;
        wakeLatenessNanos = wake;
        return true;
    }

    /** The bound now: the ceiling until the first wake-up was measured. */
    public long boundNanos() {
        return boundNanos;
    }

    /** The pacer's wake lateness now. */
    public long wakeLatenessNanos() {
        return wakeLatenessNanos;
    }

    /** The smallest bound this fit sets. */
    public long floorNanos() {
        return floorNanos;
    }

    private long roundUp(long nanos) {
        return (nanos + stepNanos - 1) / stepNanos * stepNanos;
    }

    private long roundDown(long nanos) {
        return nanos / stepNanos * stepNanos;
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }
}
