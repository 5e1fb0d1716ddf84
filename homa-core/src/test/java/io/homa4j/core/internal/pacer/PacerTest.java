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
    void packetsHandedOffLateAreCountedFromWhenTheyLeft() {
        Pacer p = new Pacer(25, 3_840_000, 0); // 1,500 B take 480 us at 25 Mb/s; the bound holds 8
        int sent = 0;
        while (p.hasRoom(1500, 0)) {
            p.sent(1500, 0);
            sent++;
        }
        assertEquals(8, sent);
        // the host wrote them only 5 ms later: all eight are still queued then, and the link is busy until
        // 5 ms + 3.84 ms, not 3.84 ms
        p.handedOff(5_000_000);
        assertEquals(3_840_000, p.queuedNanos(5_000_000));
        assertFalse(p.hasRoom(1500, 5_000_000));
        assertTrue(p.hasRoom(1500, 5_480_000));
        // nothing sent since: a later hand-off changes nothing
        p.handedOff(9_000_000);
        assertEquals(0, p.queuedNanos(9_000_000));
    }

    @Test
    void packetsHandedOffAtOnceKeepTheEstimate() {
        Pacer p = new Pacer(1_000, 100_000, 0);
        p.sent(1250, 1_000); // 10 us from 1 us
        p.handedOff(1_000);
        assertEquals(10_000, p.queuedNanos(1_000));
        // behind a queue that is still draining, a hand-off slightly later than the send adds nothing either
        p.sent(1250, 2_000); // queued behind the first: free at 21 us
        p.handedOff(3_000); // 3 us + 10 us < 21 us
        assertEquals(18_000, p.queuedNanos(3_000));
    }

    @Test
    void drainsAtLinkRate() {
        Pacer p = new Pacer(1_000, 100_000, 0);
        p.sent(1250, 0); // 10 us
        assertEquals(10_000, p.queuedNanos(0));
        assertEquals(5_000, p.queuedNanos(5_000));
        assertEquals(0, p.queuedNanos(20_000));
    }
}
