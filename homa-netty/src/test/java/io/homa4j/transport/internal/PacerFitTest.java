package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacerFitTest {
    private static final long SLACK = PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS;
    /** 1,500 B at 50 Mbit/s. */
    private static final long PACKET = 240_000;

    private static PacerFit rackFit(HomaConfig configured) {
        return PacerFit.forConfig(configured, PacerTimerSlack.apply(configured, SLACK), SLACK);
    }

    private static HomaConfig rack() {
        return HomaConfig.builder().linkMbps(50).build();
    }

    @Test
    void nothingToFitWhereTheTimerSlackIsTheBoundOrTheSlackIsOff() {
        HomaConfig fast = HomaConfig.builder().linkMbps(10_000).build();
        assertNull(PacerFit.forConfig(fast, PacerTimerSlack.apply(fast, SLACK), SLACK));
        HomaConfig gigabit = HomaConfig.builder().linkMbps(1_000).build(); // 8 packets: 96 us, under the slack
        assertNull(PacerFit.forConfig(gigabit, PacerTimerSlack.apply(gigabit, SLACK), SLACK));
        assertNull(PacerFit.forConfig(rack(), rack(), 0));
        HomaConfig chosen = rack().toBuilder().pacerMaxQueueNanos(8 * PACKET).build();
        assertNull(PacerFit.forConfig(chosen, PacerTimerSlack.apply(chosen, SLACK), SLACK),
                "a bound the application chose is never lowered");
    }

    @Test
    void startsWithTheSlacksBoundAndShrinksToTwoPacketsWhenTimersArePrecise() {
        PacerFit fit = rackFit(rack());
        HomaConfig fitted = PacerTimerSlack.apply(rack(), SLACK);
        assertEquals(fitted.pacerMaxQueueNanos(), fit.boundNanos());
        assertEquals(fitted.pacerWakeLatenessNanos(), fit.wakeLatenessNanos());
        assertEquals(2 * PACKET, fit.floorNanos());
        assertTrue(fit.timerFired(20_000));
        for (int i = 0; i < 50; i++) {
            fit.timerFired(20_000);
        }
        assertEquals(2 * PACKET, fit.boundNanos());
        // (480 - 240) / 2 - 20 us, in quarter-packet steps (60 us), rounded down
        assertEquals(60_000, fit.wakeLatenessNanos());
        assertFalse(fit.timerFired(20_000), "an unchanged fit is not reported again");
    }

    @Test
    void lateTimersKeepTheFullBoundAndOneStallRaisesItAtOnceUntilPreciseWakeUpsBringItDown() {
        PacerFit fit = rackFit(rack());
        long ceiling = fit.boundNanos();
        for (int i = 0; i < 20; i++) {
            fit.timerFired(2_000_000);
        }
        assertEquals(ceiling, fit.boundNanos());

        PacerFit steady = rackFit(rack());
        for (int i = 0; i < 50; i++) {
            steady.timerFired(50_000);
        }
        long quiet = steady.boundNanos();
        assertTrue(quiet < ceiling);
        steady.timerFired(8_000_000_000L); // an 8 s stall counts as one at the ceiling
        assertEquals(ceiling, steady.boundNanos());
        for (int i = 0; i < 30; i++) {
            steady.timerFired(50_000);
        }
        assertEquals(quiet, steady.boundNanos(), "back within 30 precise wake-ups");
    }

    @Test
    void aWakeLatenessTheApplicationChoseIsKeptBelowTheBound() {
        HomaConfig chosen = rack().toBuilder().pacerWakeLatenessNanos(4_000).build();
        PacerFit fit = rackFit(chosen);
        for (int i = 0; i < 50; i++) {
            fit.timerFired(10_000);
        }
        assertEquals(2 * PACKET, fit.boundNanos());
        assertEquals(4_000, fit.wakeLatenessNanos());
    }

    @Test
    void anEarlyFiringIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> rackFit(rack()).timerFired(-1));
    }
}
