package io.homa4j.bench.rack;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinkRateCalibrationTest {
    /** A machine whose busy share at each rate is given; records the rates it was run at. */
    private static final class FakeMachine implements LinkRateCalibration.BusyProbe {
        final Map<Integer, Double> busy;
        final List<Integer> runs = new ArrayList<>();

        FakeMachine(Map<Integer, Double> busy) {
            this.busy = busy;
        }

        @Override
        public double busyPct(int linkMbps) {
            runs.add(linkMbps);
            return busy.get(linkMbps);
        }
    }

    @Test
    void aQuietFastMachineGetsTheTopRungAfterOneRun() throws Exception {
        FakeMachine m = new FakeMachine(Map.of(100, 38.0));
        LinkRateCalibration.Choice c = LinkRateCalibration.choose(m);
        assertEquals(100, c.linkMbps());
        assertTrue(c.underTarget());
        assertEquals(List.of(100), m.runs);
        assertTrue(c.reason().contains("took 38% of the machine"), c.reason());
    }

    @Test
    void theReadmesMachineGetsFiftyAndTheReasonNamesWhatWasTooBusy() throws Exception {
        FakeMachine m = new FakeMachine(Map.of(100, 70.0, 50, 49.0, 25, 28.0));
        LinkRateCalibration.Choice c = LinkRateCalibration.choose(m);
        assertEquals(50, c.linkMbps());
        assertEquals(List.of(100, 50, 50, 50), m.runs, "49% is near the target: two more runs");
        assertEquals("link 50 Mbit/s: the rack took 49% of the machine at it (median of 3 runs) (target: under 50%);"
                + " 70% at 100 Mbit/s", c.reason());
    }

    @Test
    void aRungNearTheTargetIsJudgedByTheMedianOfThreeRuns() throws Exception {
        // one run at 46% would have chosen 25 Mbit/s; the runs after it (58%, 61%) say the machine is busier
        List<Double> at25 = new ArrayList<>(List.of(46.0, 58.0, 61.0));
        List<Integer> runs = new ArrayList<>();
        LinkRateCalibration.Choice c = LinkRateCalibration.choose(rate -> {
            runs.add(rate);
            return rate == 100 ? 110.0 : rate == 25 ? at25.remove(0) : 30.0;
        });
        assertEquals(10, c.linkMbps());
        assertEquals(List.of(100, 25, 25, 25, 10), runs);
        assertEquals(58.0, c.steps().get(1).busyPct());
        assertEquals(3, c.steps().get(1).runs());
        assertEquals(1, c.steps().get(0).runs(), "110% is far from the target: one run");
    }

    @Test
    void aRungThatCannotBeUnderTheTargetIsNotRun() throws Exception {
        // 130% at 100 Mbit/s (more than the cores: the rack fell behind) means at least 65% at 50: not run
        FakeMachine m = new FakeMachine(Map.of(100, 130.0, 25, 40.0));
        LinkRateCalibration.Choice c = LinkRateCalibration.choose(m);
        assertEquals(25, c.linkMbps());
        assertEquals(List.of(100, 25), m.runs);
    }

    @Test
    void aBusyMachineGetsTheLowestRungAndIsToldSo() throws Exception {
        FakeMachine m = new FakeMachine(Map.of(100, 130.0, 25, 70.0, 10, 61.0));
        LinkRateCalibration.Choice c = LinkRateCalibration.choose(m);
        assertEquals(10, c.linkMbps());
        assertFalse(c.underTarget());
        assertEquals(List.of(100, 25, 10), m.runs); // 50 skipped: at least 65% by proportion
        assertTrue(c.reason().contains("61% of the machine even there"), c.reason());
    }

    @Test
    void aRateGivenByHandIsMeasuredAndRefusedAboveTheLimitWithTheLimit() throws Exception {
        LinkRateCalibration.Choice ok = LinkRateCalibration.check(200, new FakeMachine(Map.of(200, 60.0)));
        assertEquals(200, ok.linkMbps());
        assertFalse(ok.underTarget());
        assertTrue(ok.reason().contains("above the 50% target"), ok.reason());

        LinkRateCalibration.Refused refused = assertThrows(LinkRateCalibration.Refused.class,
                () -> LinkRateCalibration.check(1_000, new FakeMachine(Map.of(1_000, 170.0))));
        assertEquals(500, refused.limitMbps());
        assertTrue(refused.getMessage().contains("took 170%") && refused.getMessage().contains("500 Mbit/s"),
                refused.getMessage());
    }

    @Test
    void moreHostsThanFitAreRefusedWithTheLimit() {
        long eightGb = 8L << 30;
        assertNull(RackLimits.hostsRefusal(4, eightGb));
        assertEquals(25, RackLimits.hostsThatFit(eightGb));
        String reason = RackLimits.hostsRefusal(30, eightGb);
        assertTrue(reason.contains("at most 25 hosts fit"), reason);
        assertTrue(RackLimits.hostsRefusal(65, Long.MAX_VALUE).contains("at most 64 hosts"));
    }
}
