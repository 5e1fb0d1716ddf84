package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fits the engine's pacer to the precision of an event loop's timers.
 *
 * <p>The pacer holds packets back while the host's estimated queue exceeds {@link HomaConfig#pacerMaxQueueNanos()}
 * and asks to be woken when there is room again. The Linux module's 5 us bound assumes a precise, dedicated pacer
 * thread. A Netty scheduled task fires late: measured on this project's machines, a 100 us epoll timer fired
 * after 204 us at P50 (238 us at P90), a 10 us one after 20 us (197 us at P90). Every late wake-up is idle link
 * time the pacer never recovers, so with a 5 us bound a 1 MB loopback echo at linkMbps 1000 moved 29 Mbit/s;
 * with the bound raised to the timer slack, 103-162 Mbit/s (two runs). The cost is a host queue of up to that
 * much link time in front of a newly arrived short message: 2.5 KB at 100 Mbit/s, 25 KB at 1 Gbit/s.
 *
 * <p>At low link rates a time bound of that size holds less than two packets (a 1,500 B packet takes 120 us at
 * 100 Mbit/s), so every late wake-up still idles the link. The bound is therefore also at least
 * {@link #MIN_QUEUED_PACKETS} full packets of link time, about what the Linux module's 5 us bound holds at the
 * 25 Gbit/s it was tuned for (15.6 KB). In the netlab rack at 100 Mbit/s, one 1 MB flow moved 60 of 100 Mbit/s
 * with the 200 us bound.
 *
 * <p>The simulator needs none of this: its virtual clock wakes the engine exactly when asked.
 */
public final class PacerTimerSlack {
    /** Lateness of an event-loop timer that the pacer must absorb (see the class comment for the measurement). */
    public static final long EVENT_LOOP_TIMER_SLACK_NANOS = 200_000;

    /** Full-size packets the pacer may always have queued, whatever the link rate. */
    public static final int MIN_QUEUED_PACKETS = 8;

    private static final Logger LOG = LoggerFactory.getLogger(PacerTimerSlack.class);

    private PacerTimerSlack() {
    }

    /**
     * {@code config} with its pacer bound raised to at least {@code slackNanos} and at least
     * {@link #MIN_QUEUED_PACKETS} full packets of link time; {@code config} itself when it is already that large
     * or {@code slackNanos} is 0 (off).
     */
    public static HomaConfig apply(HomaConfig config, long slackNanos) {
        if (slackNanos <= 0) {
            return config;
        }
        long packetNanos = (long) Math.ceil(config.mtu() * 8_000.0 / config.linkMbps());
        long bound = Math.max(slackNanos, MIN_QUEUED_PACKETS * packetNanos);
        if (config.pacerMaxQueueNanos() >= bound) {
            return config;
        }
        LOG.debug("pacerMaxQueueNanos {} raised to {} (timer slack {}, {} packets of link time)",
                config.pacerMaxQueueNanos(), bound, slackNanos, MIN_QUEUED_PACKETS);
        return config.toBuilder().pacerMaxQueueNanos(bound).build();
    }
}
