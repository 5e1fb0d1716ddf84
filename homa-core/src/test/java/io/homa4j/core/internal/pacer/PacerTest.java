package io.homa4j.core.internal.pacer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacerTest {

    @Test
    void holdsBackWhenTheOwnQueueWouldExceedTheBound() {
        Pacer p = new Pacer(10_000, 5_000, 0); // 10 Gb/s: 0.8 ns per byte; 1500 B = 1200 ns
        assertEquals(1200, p.wireNanos(1500));
        int sent = 0;
        while (p.hasRoom(1500, 0)) {
            p.sent(1500, 0);
            sent++;
        }
        assertEquals(4, sent); // 4 x 1200 = 4800 <= 5000; a fifth would make 6000
        assertFalse(p.hasRoom(1500, 0));
        assertTrue(p.hasRoom(1500, p.roomAtNanos(1500)));
        assertFalse(p.hasRoom(1500, p.roomAtNanos(1500) - 1));
    }

    @Test
    void alwaysLetsOnePacketOntoAnIdleLink() {
        Pacer p = new Pacer(100, 5_000, 0); // 1500 B take 120 us at 100 Mb/s
        assertTrue(p.hasRoom(1500, 0));
        p.sent(1500, 0);
        assertFalse(p.hasRoom(1500, 1));
        assertTrue(p.hasRoom(1500, 120_000));
    }

    @Test
    void drainsAtLinkRate() {
        Pacer p = new Pacer(1_000, 100_000, 0);
        p.sent(1250, 0); // 10 us
        assertEquals(10_000, p.queuedNanos(0));
        assertEquals(5_000, p.queuedNanos(5_000));
        assertEquals(0, p.queuedNanos(20_000));
    }

    @Test
    void aLoweredBoundHoldsBackSoonerAndPacketsAlreadyQueuedStayCounted() {
        Pacer p = new Pacer(100, 1_000_000, 0); // 1500 B = 120 us
        for (int i = 0; i < 5; i++) {
            p.sent(1500, 0);
        }
        assertEquals(600_000, p.queuedNanos(0));
        p.maxQueueNanos(240_000);
        assertEquals(240_000, p.maxQueueNanos());
        assertFalse(p.hasRoom(1500, 0));
        assertEquals(600_000 - 120_000, p.roomAtNanos(1500), "room once one packet's time is left queued, less 120 us");
        assertTrue(p.hasRoom(1500, 480_000));
    }
}
