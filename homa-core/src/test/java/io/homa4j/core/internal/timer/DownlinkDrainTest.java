package io.homa4j.core.internal.timer;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DownlinkDrainTest {
    private static final long MS = 1_000_000;
    /** 25 Mbit/s: 3,125 bytes per millisecond; a full packet of 1,538 wire bytes takes 492 us. */
    private final DownlinkDrain drain = new DownlinkDrain(8, 25, 1_538, 0);

    /** DATA at the full link rate for the tick ending at {@code tickNanos}, all of it sent at {@code level}. */
    private void busyTick(int level, long tickNanos) {
        drain.dataArrived(level, 3_125, tickNanos - MS / 2);
        drain.tick(tickNanos);
    }

    @Test
    void aPacketAtOneLevelProvesEveryHigherLevelDrainedAndNothingAtOrBelowIt() {
        busyTick(3, MS);
        for (int level = 0; level <= 3; level++) {
            assertFalse(drain.drainedDuringLastTick(level), "level " + level);
        }
        for (int level = 4; level < 8; level++) {
            assertTrue(drain.drainedDuringLastTick(level), "level " + level);
        }
        busyTick(7, 2 * MS);
        assertFalse(drain.drainedDuringLastTick(4), "the proof is for the tick it came in, not later ones");
    }

    @Test
    void aTickUnderHalfTheLinkRateDrainedEveryLevel() {
        busyTick(7, MS);
        assertFalse(drain.drainedDuringLastTick(0));
        drain.dataArrived(7, 1_500, 1_500_000); // 48% of 3,125 bytes
        drain.tick(2 * MS);
        assertTrue(drain.drainedDuringLastTick(0));
        drain.dataArrived(7, 1_600, 2_500_000); // 51%
        drain.tick(3 * MS);
        assertFalse(drain.drainedDuringLastTick(0));
    }

    @Test
    void aTickSoonerThanTwoPacketsOnTheLinkJudgesNothing() {
        busyTick(7, MS);
        // a late tick followed by an early one: 300 us without a whole packet, though the port sent all along
        drain.tick(MS + 300_000);
        assertFalse(drain.drainedDuringLastTick(0), "shorter than a packet: no proof of an idle port");
        drain.dataArrived(7, 1_472, MS + 500_000);
        drain.dataArrived(7, 1_472, MS + 990_000);
        drain.tick(2 * MS);
        assertFalse(drain.drainedDuringLastTick(0), "the bytes of the short tick count in the next one: busy");
        drain.tick(2 * MS + 300_000);
        drain.tick(3 * MS);
        assertTrue(drain.drainedDuringLastTick(0), "a millisecond without DATA is idle, however it is ticked");
    }

    @Test
    void aBusySlowLinkDeliversLessThanAPacketPerTickYetIsNotIdle() {
        // 10 Mbit/s: a full packet takes 1.23 ms on the link, longer than a 1 ms tick
        DownlinkDrain slow = new DownlinkDrain(8, 10, 1_538, 0);
        long packetNanos = 1_538L * 8_000 / 10;
        long t = 0;
        for (long tick = MS; tick <= 20 * MS; tick += MS) {
            while (t + packetNanos <= tick) {
                t += packetNanos;
                slow.dataArrived(7, 1_538, t);
            }
            slow.tick(tick);
            assertFalse(slow.drainedDuringLastTick(0), "a port sending back to back is busy at " + tick + " ns");
        }
    }

    @Test
    void aPacketThatDoesNotSayItsLevelCountsTowardsTheRateOnly() {
        drain.dataArrived(-1, 3_125, MS / 2);
        drain.tick(MS);
        assertFalse(drain.drainedDuringLastTick(7));
    }

    @Test
    void undrainedTicksDrawKeepalivesNeverAResend() {
        SilenceRules rules = new SilenceRules(HomaConfig.builder().resendTicks(5).abortTicks(1_000).build());
        assertEquals(100, rules.keepAliveTicks());
        RpcSilence silence = new RpcSilence();
        java.util.List<Integer> keepalives = new java.util.ArrayList<>();
        for (int tick = 1; tick <= 250; tick++) {
            silence.silentTick(false);
            assertFalse(silence.serverResendDue(rules, 5), "a silence the port explains draws no RESEND: " + tick);
            assertFalse(silence.clientResendDue(rules, 5));
            if (silence.keepAliveDue(rules)) {
                keepalives.add(tick);
            }
        }
        assertEquals(java.util.List.of(100, 200), keepalives, "but a BUSY keepalive every keepAliveTicks");
        for (int tick = 1; tick <= 5; tick++) {
            silence.silentTick(true);
            assertFalse(silence.keepAliveDue(rules));
            assertEquals(tick == 5, silence.serverResendDue(rules, 5), "drained ticks count: " + tick);
        }
    }
}
