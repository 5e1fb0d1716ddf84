package io.homa4j.transport.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopLagTest {
    private static final long MS = 1_000_000;
    private static final long EPOCH = LoopLag.EPOCH_NANOS;

    @Test
    void aLongTurnIsTheLagForOneToTwoEpochsThenForgotten() {
        LoopLag lag = new LoopLag();
        assertTrue(lag.turnEnded(0, MS / 10), "the first turn sets the lag");
        assertEquals(MS / 10, lag.lagNanos());
        assertTrue(lag.turnEnded(10 * MS, 40 * MS), "a 30 ms turn");
        assertEquals(30 * MS, lag.lagNanos());
        assertFalse(lag.turnEnded(50 * MS, 51 * MS), "a short turn does not lower it");

        lag.turnEnded(EPOCH + MS, EPOCH + 2 * MS); // next epoch: the last one's longest turn still counts
        assertEquals(30 * MS, lag.lagNanos());
        assertTrue(lag.turnEnded(2 * EPOCH + 3 * MS, 2 * EPOCH + 4 * MS), "two epochs on, it is forgotten");
        assertEquals(MS, lag.lagNanos());
    }

    @Test
    void anIdleStretchLongerThanTwoEpochsForgetsEverything() {
        LoopLag lag = new LoopLag();
        lag.turnEnded(0, 50 * MS);
        lag.turnEnded(10 * EPOCH, 10 * EPOCH + MS / 2);
        assertEquals(MS / 2, lag.lagNanos());
    }

    @Test
    void reportsOnlyChanges() {
        LoopLag lag = new LoopLag();
        assertTrue(lag.turnEnded(0, 2 * MS));
        assertFalse(lag.turnEnded(3 * MS, 4 * MS));
        assertFalse(lag.turnEnded(5 * MS, 7 * MS), "an equal turn changes nothing");
        assertTrue(lag.turnEnded(8 * MS, 11 * MS));
    }
}
