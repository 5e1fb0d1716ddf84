package io.homa4j.core.internal.timer;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DownlinkDrainTest {
    private static final long MS = 1_000_000;
    /** 25 Mbit/s: 3,125 bytes per millisecond. */
    private final DownlinkDrain drain = new DownlinkDrain(8, 25, 0);

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
    void aPacketThatDoesNotSayItsLevelCountsTowardsTheRateOnly() {
        drain.dataArrived(-1, 3_125, MS / 2);
        drain.tick(MS);
        assertFalse(drain.drainedDuringLastTick(7));
    }

    @Test
    void undrainedTicksCountTowardsAResendOnlyAtTheKeepaliveRate() {
        SilenceRules rules = new SilenceRules(HomaConfig.builder().resendTicks(5).abortTicks(1_000).build());
        assertEquals(100, rules.keepAliveTicks());
        assertEquals(5, rules.resendClock(5, 0, 5));
        assertEquals(4, rules.resendClock(0, 99, 5), "99 busy ticks: under one interval");
        assertEquals(5, rules.resendClock(0, 100, 5), "a whole keepalive of busy ticks: one interval");
        RpcSilence silence = new RpcSilence();
        int due = 0;
        for (int tick = 1; tick <= 100; tick++) {
            silence.silentTick(false);
            if (silence.serverResendDue(rules, 5)) {
                due = tick;
                break;
            }
        }
        assertEquals(100, due, "a silence the port explains throughout still draws a RESEND after the keepalive");
    }
}
