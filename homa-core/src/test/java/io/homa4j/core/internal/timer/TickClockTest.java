package io.homa4j.core.internal.timer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TickClockTest {
    private static final long TICK = 1_000_000;

    @Test
    void disarmedHasNoTickAndNoLatestTime() {
        TickClock clock = new TickClock(TICK);
        assertEquals(Long.MAX_VALUE, clock.nextTickNanos());
        assertEquals(Long.MAX_VALUE, clock.latestTickNanos());
        assertFalse(clock.due(Long.MAX_VALUE - 1));
    }

    @Test
    void aTickMayRunLateByLessThanATick() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        assertEquals(TICK, clock.nextTickNanos());
        assertTrue(clock.latenessNanos() > 0 && clock.latenessNanos() < TICK);
        assertEquals(TICK + clock.latenessNanos(), clock.latestTickNanos());
    }

    @Test
    void lateTicksKeepTheGridSoASecondStillCountsTheSameTicks() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        int ticks = 0;
        for (long now = 0; now <= 1_000_000_000L + TICK; now += 1_000) {
            // every tick runs at the very end of its lateness, as a driver with no packet turns would run it
            if (now >= clock.latestTickNanos()) {
                assertTrue(clock.due(now));
                clock.ticked(now, true);
                ticks++;
            }
        }
        assertEquals(1_000, ticks, "a tick per tickNanos (1,000 due by 1 s + 1 ms), whatever their lateness");
    }

    @Test
    void aTickLaterThanATickStartsANewGridRatherThanABurst() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        clock.ticked(5 * TICK + 1, true);
        assertEquals(6 * TICK + 1, clock.nextTickNanos());
        assertFalse(clock.due(6 * TICK));
    }

    @Test
    void aTickScheduledAheadStandsForTheTicksItSkipped() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        assertEquals(1, clock.elapsedTicks());
        clock.ticked(TICK, true, 5);
        assertEquals(6 * TICK, clock.nextTickNanos());
        assertFalse(clock.due(6 * TICK - 1));
        assertEquals(5, clock.elapsedTicks());
        clock.ticked(6 * TICK, true);
        assertEquals(7 * TICK, clock.nextTickNanos());
        assertEquals(1, clock.elapsedTicks());
    }

    @Test
    void armingBringsATickScheduledAheadBackToOneTickAndItCountsTheTicksSinceTheLast() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        clock.ticked(TICK, true, 100);
        clock.arm(3 * TICK + TICK / 10); // new state to watch, 2.1 ticks after the last tick
        assertEquals(4 * TICK + TICK / 10, clock.nextTickNanos());
        assertEquals(3, clock.elapsedTicks(), "3.1 ticks since the last one ran, rounded");
        clock.arm(3 * TICK + TICK / 2); // a tick within one tick stays where it is
        assertEquals(4 * TICK + TICK / 10, clock.nextTickNanos());
    }

    @Test
    void aLateTickScheduledAheadStartsANewGridAndStillCountsOnlyItsOwnTicks() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        clock.ticked(50 * TICK, true, 3); // the host was away for 49 ticks: no catch-up
        assertEquals(53 * TICK, clock.nextTickNanos());
        assertEquals(3, clock.elapsedTicks());
    }

    @Test
    void stretchingMovesTheNextTickAheadOnItsGridAndNeverCloser() {
        TickClock clock = new TickClock(TICK);
        clock.stretch(5);
        assertEquals(Long.MAX_VALUE, clock.nextTickNanos(), "nothing armed: nothing to stretch");
        clock.arm(TICK / 4);
        clock.stretch(2);
        assertEquals(TICK / 4 + 2 * TICK, clock.nextTickNanos());
        assertEquals(2, clock.elapsedTicks(), "the stretched tick stands for both ticks");
        clock.stretch(1);
        assertEquals(TICK / 4 + 2 * TICK, clock.nextTickNanos(), "a shorter stretch leaves it");
        clock.arm(TICK / 2);
        assertEquals(TICK / 2 + TICK, clock.nextTickNanos(), "new state brings it back to one tick");
    }

    @Test
    void stretchingFromNowCountsTheTicksFromNowNotFromAGridPointLongPast() {
        TickClock clock = new TickClock(TICK);
        clock.arm(0);
        clock.ticked(TICK, true, 40); // a response waits 40 ticks for its ACK
        clock.arm(10 * TICK); // a new request: watched again from one tick on, counting from the old grid point
        assertTrue(clock.stretch(40));
        assertEquals(41 * TICK, clock.nextTickNanos(), "from the old grid point: 30 ticks after the new state came");

        TickClock fresh = new TickClock(TICK);
        fresh.arm(0);
        fresh.ticked(TICK, true, 40);
        fresh.arm(10 * TICK);
        assertTrue(fresh.stretchFromNow(40, 10 * TICK + TICK / 5));
        assertEquals(50 * TICK + TICK / 5, fresh.nextTickNanos(), "40 ticks from the new state's start");
        assertEquals(40, fresh.elapsedTicks(), "and the tick stands for those 40");
        assertFalse(fresh.stretchFromNow(1, 20 * TICK), "one tick ahead is no stretch");
        assertFalse(new TickClock(TICK).stretchFromNow(5, 0), "nothing armed: nothing to stretch");
    }
}
