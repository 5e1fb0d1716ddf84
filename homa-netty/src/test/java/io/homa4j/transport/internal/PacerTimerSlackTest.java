package io.homa4j.transport.internal;

import io.homa4j.HomaEndpoint;
import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class PacerTimerSlackTest {

    @Test
    void aBoundBelowTheSlackIsRaisedAndNothingElseChanges() {
        HomaConfig config = HomaConfig.builder().linkMbps(1_000).pacerMaxQueueNanos(5_000).build();
        HomaConfig fitted = PacerTimerSlack.apply(config, 200_000);
        assertEquals(200_000, fitted.pacerMaxQueueNanos());
        assertEquals(config.linkMbps(), fitted.linkMbps());
        assertEquals(config.unscheduledBytes(), fitted.unscheduledBytes());
        assertEquals(config.abortTicks(), fitted.abortTicks());
        assertEquals(0, fitted.pacerWakeLatenessNanos(), "a queue of 200 us cannot cover a late timer twice");
    }

    @Test
    void atLowLinkRatesTheBoundHoldsAFewFullPackets() {
        // 1,500 B at 100 Mbit/s is 120 us: 200 us would hold less than two packets.
        HomaConfig slow = HomaConfig.builder().linkMbps(100).pacerMaxQueueNanos(5_000).build();
        assertEquals(PacerTimerSlack.MIN_QUEUED_PACKETS * 120_000L,
                PacerTimerSlack.apply(slow, 200_000).pacerMaxQueueNanos());
        // At 10 Gbit/s eight packets are 9.6 us: the timer slack is the larger bound.
        HomaConfig fast = HomaConfig.builder().linkMbps(10_000).pacerMaxQueueNanos(5_000).build();
        assertEquals(200_000, PacerTimerSlack.apply(fast, 200_000).pacerMaxQueueNanos());
        // 100 Mbit/s: (960 - 120) / 2 - 200 us
        assertEquals(220_000, PacerTimerSlack.apply(slow, 200_000).pacerWakeLatenessNanos());
    }

    @Test
    void atTheRacksLinkRateTheLoopWakesWhenAboutHalfTheQueueHasDrained() {
        HomaConfig rack = HomaConfig.builder().linkMbps(25).pacerMaxQueueNanos(5_000).build();
        HomaConfig fitted = PacerTimerSlack.apply(rack, 200_000);
        assertEquals(8 * 480_000L, fitted.pacerMaxQueueNanos());
        // what is left when the latest wake-up comes, 1.88 ms, still covers a timer 200 us late
        assertEquals((8 * 480_000L - 480_000) / 2 - 200_000, fitted.pacerWakeLatenessNanos());
    }

    @Test
    void aLargerBoundIsKeptAndAWakeLatenessSetByTheUserToo() {
        HomaConfig large = HomaConfig.builder().linkMbps(1_000).pacerMaxQueueNanos(1_000_000).build();
        HomaConfig fitted = PacerTimerSlack.apply(large, 200_000);
        assertEquals(1_000_000, fitted.pacerMaxQueueNanos());
        assertEquals((1_000_000 - 12_000) / 2 - 200_000, fitted.pacerWakeLatenessNanos());
        HomaConfig chosen = large.toBuilder().pacerWakeLatenessNanos(50_000).build();
        assertSame(chosen, PacerTimerSlack.apply(chosen, 200_000));
    }

    @Test
    void zeroSlackKeepsTheConfig() {
        HomaConfig small = HomaConfig.defaults();
        assertSame(small, PacerTimerSlack.apply(small, 0));
    }

    @Test
    void anEndpointReportsTheBoundInEffect() {
        try (HomaEndpoint fitted = HomaEndpoint.builder().build();
             HomaEndpoint exact = HomaEndpoint.builder().pacerTimerSlackNanos(0).build()) {
            assertEquals(PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS, fitted.config().pacerMaxQueueNanos());
            assertEquals(HomaConfig.defaults().pacerMaxQueueNanos(), exact.config().pacerMaxQueueNanos());
        }
    }
}
