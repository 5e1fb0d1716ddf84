package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fits the engine's pacer to the precision of an event loop's timers.
 *
 * <p>The pacer holds packets back while the host's estimated queue exceeds {@link HomaConfig#pacerMaxQueueNanos()}
 * and asks to be woken when there is room again. The Linux module's 5 us bound assumes a precise, dedicated pacer
 * thread. A Netty scheduled task fires late, by up to about {@link #EVENT_LOOP_TIMER_SLACK_NANOS} on a loaded VM
 * (docs/architecture.md). Every late wake-up is idle link time the pacer never recovers, so the bound is raised to
 * that slack. The cost is a host queue of up to that much link time in front of a newly arrived short message:
 * 2.5 KB at 100 Mbit/s, 25 KB at 1 Gbit/s.
 *
 * <p>At low link rates a time bound of that size holds less than two packets (a 1,500 B packet takes 120 us at
 * 100 Mbit/s), so every late wake-up still idles the link. The bound is therefore also at least
 * {@link #MIN_QUEUED_PACKETS} full packets of link time, about what the Linux module's 5 us bound holds at the
 * 25 Gbit/s it was tuned for (15.6 KB).
 *
 * <p>A bound of several packets also lets the loop wake less often: once the queue is full, the engine would be
 * woken each time one packet's worth has drained, every 480 us at 25 Mbit/s, and each wake-up costs CPU.
 * {@link HomaConfig#pacerWakeLatenessNanos()} is therefore set to half of what the
 * queue holds beyond one packet, less the timer's lateness: the loop wakes when about half the queue has drained
 * and tops it up in one turn, with the timer's lateness still covered by what is left (at 25 Mbit/s: 1.48 ms,
 * about three packets per wake-up). Where that is not positive (fast links, whose bound is the timer slack
 * itself) the pacer wakes as before.
 *
 * <p>Those packets are also what every GRANT and short message the host sends waits behind, so the packet floor
 * is only where an endpoint starts: {@link PacerFit} lowers the bound towards two packets as the loop's timer
 * wake-ups prove more precise than the fixed slack assumes.
 *
 * <p>The simulator needs none of this: its virtual clock wakes the engine exactly when asked.
 */
public final class PacerTimerSlack {
    /** Lateness of an event-loop timer that the pacer must absorb (see the class comment). */
    public static final long EVENT_LOOP_TIMER_SLACK_NANOS = 200_000;

    /** Full-size packets the pacer may always have queued, whatever the link rate. */
    public static final int MIN_QUEUED_PACKETS = 8;

    private static final Logger LOG = LoggerFactory.getLogger(PacerTimerSlack.class);

    private PacerTimerSlack() {
    }

    /**
     * {@code config} with its pacer bound raised to at least {@code slackNanos} and at least
     * {@link #MIN_QUEUED_PACKETS} full packets of link time, and, unless set, its pacer wake lateness derived from
     * that bound (see the class comment); {@code config} itself when nothing changes or {@code slackNanos} is 0
     * (off).
     */
    public static HomaConfig apply(HomaConfig config, long slackNanos) {
        if (slackNanos <= 0) {
            return config;
        }
        long packetNanos = packetNanos(config);
        long bound = Math.max(config.pacerMaxQueueNanos(), Math.max(slackNanos, MIN_QUEUED_PACKETS * packetNanos));
        long lateness = config.pacerWakeLatenessNanos() > 0 ? config.pacerWakeLatenessNanos()
                : wakeLatenessNanos(bound, packetNanos, slackNanos);
        if (bound == config.pacerMaxQueueNanos() && lateness == config.pacerWakeLatenessNanos()) {
            return config;
        }
        LOG.debug("pacerMaxQueueNanos {} -> {} (timer slack {}, {} packets of link time), pacerWakeLatenessNanos {}",
                config.pacerMaxQueueNanos(), bound, slackNanos, MIN_QUEUED_PACKETS, lateness);
        return config.toBuilder().pacerMaxQueueNanos(bound).pacerWakeLatenessNanos(lateness).build();
    }

    /** Link time of one full-size packet under {@code config}. */
    static long packetNanos(HomaConfig config) {
        return (long) Math.ceil(config.mtu() * 8_000.0 / config.linkMbps());
    }

    /** Half of what a queue of {@code boundNanos} holds beyond one packet, less the timer's lateness; at least 0. */
    static long wakeLatenessNanos(long boundNanos, long packetNanos, long slackNanos) {
        return Math.max(0, (boundNanos - packetNanos) / 2 - slackNanos);
    }
}
