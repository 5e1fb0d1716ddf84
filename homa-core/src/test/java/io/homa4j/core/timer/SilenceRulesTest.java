package io.homa4j.core.timer;

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
    void needAcksBackOffUpToTheKeepAlivePeriod() {
        SilenceRules rules = new SilenceRules(HomaConfig.builder().needAckTicks(2).resendTicks(5).abortTicks(1_000)
                .build());
        java.util.List<Integer> due = new java.util.ArrayList<>();
        for (int tick = 1; tick < 1_000; tick++) {
            if (rules.needAckDue(tick)) {
                due.add(tick);
            }
        }
        // 2, then +5, +10, +20, +40, +80, then every keepAliveTicks (100)
        assertEquals(java.util.List.of(2, 7, 17, 37, 77, 157, 257, 357, 457, 557, 657, 757, 857, 957), due);
    }
}
