package io.homa4j.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Values HomaConfig derives when they are not set. */
class HomaConfigTest {
    @Test
    void resendTimeoutIsTheModulesOnFastLinks() {
        assertEquals(HomaConfig.DEFAULT_RESEND_TICKS, HomaConfig.defaults().resendTicks());
        assertEquals(HomaConfig.DEFAULT_RESEND_TICKS,
                HomaConfig.builder().linkMbps(100_000).rttMicros(2).build().resendTicks());
        // 100 Mbit/s with 8 packets of pacer queue: 0.96 ms + 0.94 ms of queued data, twice: 3.8 ms, under 5.
        assertEquals(HomaConfig.DEFAULT_RESEND_TICKS, HomaConfig.builder().linkMbps(100).rttMicros(18)
                .pacerMaxQueueNanos(960_000).build().resendTicks());
    }

    @Test
    void resendTimeoutGrowsOnSlowLinks() {
        // 25 Mbit/s: 8 full packets in the pacer (3.84 ms), 8 x 1,472 B granted (3.77 ms); twice 7.61 ms -> 16 ticks.
        HomaConfig slow = HomaConfig.builder().linkMbps(25).rttMicros(18).pacerMaxQueueNanos(3_840_000).build();
        assertEquals(11_776, slow.maxIncomingBytes());
        assertEquals(16, slow.resendTicks());
        // Coarser ticks: the same wait in 2 ms ticks.
        assertEquals(8, slow.toBuilder().tickNanos(2_000_000).build().resendTicks());
    }

    @Test
    void aSetResendTimeoutIsKeptAndDerivationSurvivesToBuilder() {
        assertEquals(3, HomaConfig.builder().linkMbps(25).resendTicks(3).build().resendTicks());
        HomaConfig fast = HomaConfig.defaults();
        // toBuilder keeps "derive", so a config rebuilt for a slower link gets the longer timeout.
        HomaConfig rebuilt = fast.toBuilder().linkMbps(25).pacerMaxQueueNanos(3_840_000).maxIncomingBytes(11_776)
                .build();
        assertEquals(16, rebuilt.resendTicks());
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().resendTicks(-1).build());
    }

    @Test
    void thePacersWakeLatenessStaysBelowItsQueueBound() {
        assertEquals(0, HomaConfig.defaults().pacerWakeLatenessNanos(), "the simulator's engine wakes per packet");
        HomaConfig set = HomaConfig.builder().pacerMaxQueueNanos(3_840_000).pacerWakeLatenessNanos(1_480_000).build();
        assertEquals(1_480_000, set.toBuilder().build().pacerWakeLatenessNanos());
        assertThrows(IllegalArgumentException.class,
                () -> HomaConfig.builder().pacerWakeLatenessNanos(-1).build());
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().pacerMaxQueueNanos(100_000)
                .pacerWakeLatenessNanos(100_000).build(), "at the bound the link would idle before the wake-up");
    }

    @Test
    void aLoneResponseWaitsLongerForItsAckButNeverPastTheAbort() {
        HomaConfig defaults = HomaConfig.defaults();
        assertEquals(2, defaults.needAckTicks());
        assertEquals(40, defaults.loneNeedAckTicks());
        assertEquals(29, HomaConfig.builder().abortTicks(30).build().loneNeedAckTicks(), "derived below the abort");
        assertEquals(3, HomaConfig.builder().needAckTicks(3).abortTicks(3).build().loneNeedAckTicks(),
                "never below needAckTicks");
        HomaConfig set = HomaConfig.builder().loneNeedAckTicks(7).build();
        assertEquals(7, set.loneNeedAckTicks());
        assertEquals(7, set.toBuilder().build().loneNeedAckTicks());
        assertEquals(29, defaults.toBuilder().abortTicks(30).build().loneNeedAckTicks(), "the default re-derives");
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().loneNeedAckTicks(1).build(),
                "below needAckTicks");
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().loneNeedAckTicks(1_000).build(),
                "at the abort");
        assertThrows(IllegalArgumentException.class, () -> HomaConfig.builder().loneNeedAckTicks(-1).build());
    }
}
