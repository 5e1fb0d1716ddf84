package io.homa4j.core.internal.timer;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SilenceRulesTest {
    private final SilenceRules rules = new SilenceRules(HomaConfig.builder().resendTicks(5).abortTicks(1_000).build());

    @Test
    void resendIntervalDoublesWithBusyAnswersUpToTheKeepalivePeriod() {
        assertEquals(100, rules.keepAliveTicks());
        assertFalse(rules.resendDue(4, 0, 0));
        assertTrue(rules.resendDue(5, 0, 0));
        assertFalse(rules.resendDue(9, 0, 1));
        assertTrue(rules.resendDue(10, 0, 1));
        assertFalse(rules.resendDue(39, 0, 3));
        assertTrue(rules.resendDue(40, 0, 3));
        assertFalse(rules.resendDue(99, 0, 30), "capped at keepAliveTicks, not 5 << 30");
        assertTrue(rules.resendDue(100, 0, 30));
        assertTrue(rules.resendDue(25, 20, 0), "counted from the last RESEND");
    }

    @Test
    void aCallIsGivenUpOnlyWhenItsServerIsGoneOrIgnoresItsResends() {
        assertFalse(rules.clientAbortDue(999, 0, false), "not silent long enough");
        assertTrue(rules.clientAbortDue(1_000, 0, false), "server unheard for abortTicks");
        assertFalse(rules.clientAbortDue(5_000, 199, true), "live server, RESENDs still being answered elsewhere");
        assertEquals(200, rules.maxUnansweredResends());
        assertTrue(rules.clientAbortDue(1_000, 200, true), "live server left 200 RESENDs of this call unanswered");
    }

    @Test
    void aServerProbesASilentClientTwiceWithBackOffThenWaits() {
        SilenceRules rules = new SilenceRules(HomaConfig.builder().needAckTicks(2).resendTicks(5).abortTicks(1_000)
                .build());
        assertEquals(java.util.List.of(5, 10), probeTicks(rules, 5), "RESENDs: after 5 silent ticks, then +5");
        assertEquals(java.util.List.of(2, 7), probeTicks(rules, 2), "NEED_ACKs: after 2 silent ticks, then +5");
        assertTrue(rules.probeDue(40, 35, 1, 5, true), "counted from the last probe, or from when the client was heard");
        assertFalse(rules.probeDue(39, 35, 1, 5, true));
        assertFalse(rules.probeDue(500, 35, 2, 5, true), "two unanswered: no more");
        assertTrue(rules.probeDue(500, 35, 2, 5, false), "unless the client proved its address");
        assertEquals(java.util.List.of(5, 10, 15, 20), serverResendTicks(rules, 5, 20),
                "that client's RESENDs go every resendTicks");
    }

    /** The silent ticks (all with the port drained) at which a server RESENDs to a proven client. */
    private static java.util.List<Integer> serverResendTicks(SilenceRules rules, int peerResendTicks, int ticks) {
        RpcSilence silence = new RpcSilence();
        java.util.List<Integer> due = new java.util.ArrayList<>();
        for (int tick = 1; tick <= ticks; tick++) {
            silence.silentTick(true);
            if (silence.serverResendDue(rules, peerResendTicks)) {
                silence.resendSent(rules);
                due.add(tick);
            }
        }
        return due;
    }

    /** The ticks at which probes go to a client that never answers, over one abort timeout. */
    private static java.util.List<Integer> probeTicks(SilenceRules rules, int firstAfter) {
        java.util.List<Integer> due = new java.util.ArrayList<>();
        int last = 0;
        for (int tick = 1; tick < 1_000; tick++) {
            if (rules.probeDue(tick, last, due.size(), firstAfter, true)) {
                due.add(tick);
                last = tick;
            }
        }
        return due;
    }

    @Test
    void aPeersResendIntervalFollowsItsMeasuredRoundTripWithinTheConfiguredFloorAndTheKeepalive() {
        RttEstimator rtt = new RttEstimator();
        assertEquals(5, rules.resendTicksFor(rtt), "no samples: the configured interval");
        rtt.sample(1_000_000);
        assertEquals(5, rules.resendTicksFor(rtt), "1 ms + 4 x 0.5 ms = 3 ms: below the floor");
        RttEstimator queued = new RttEstimator();
        queued.sample(8_000_000);
        assertEquals(8_000_000 + 4 * 4_000_000, queued.timeoutNanos());
        assertEquals(25, rules.resendTicksFor(queued), "24 ms, plus the tick a silence may have started in");
        RttEstimator slow = new RttEstimator();
        slow.sample(900_000_000);
        assertEquals(100, rules.resendTicksFor(slow), "capped at keepAliveTicks");
        assertFalse(rules.resendDue(24, 0, 0, 25));
        assertTrue(rules.resendDue(25, 0, 0, 25));
        assertEquals(java.util.List.of(25, 50), serverResendTicks(rules, 25, 60));
        assertFalse(rules.clientAbortDue(1_000, 39, true, 25), "40 RESENDs of 25 ticks fit in abortTicks");
        assertTrue(rules.clientAbortDue(1_000, 40, true, 25));
    }

    @Test
    void theEstimatorSmoothsLikeTcpsRetransmissionTimer() {
        RttEstimator rtt = new RttEstimator();
        assertEquals(0, rtt.timeoutNanos());
        rtt.sample(-5);
        assertEquals(0, rtt.samples(), "a negative sample is ignored");
        rtt.sample(800);
        assertEquals(800, rtt.smoothedNanos());
        assertEquals(400, rtt.variationNanos());
        rtt.sample(1_600); // RTTVAR = 3/4 x 400 + 1/4 x |800 - 1600|; SRTT = 7/8 x 800 + 1/8 x 1600
        assertEquals(500, rtt.variationNanos());
        assertEquals(900, rtt.smoothedNanos());
        assertEquals(900 + 4 * 500, rtt.timeoutNanos());
        for (int i = 0; i < 200; i++) {
            rtt.sample(1_000_000);
        }
        assertTrue(Math.abs(rtt.smoothedNanos() - 1_000_000) <= 1_000 && rtt.variationNanos() <= 1_000,
                "steady samples: SRTT converges, RTTVAR decays: " + rtt.smoothedNanos() + " " + rtt.variationNanos());
    }
}
