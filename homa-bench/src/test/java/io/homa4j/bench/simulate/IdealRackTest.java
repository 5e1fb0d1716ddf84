package io.homa4j.bench.simulate;

import io.homa4j.bench.report.SlowdownCsv;
import io.homa4j.bench.workload.Workloads;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdealRackTest {
    private static IdealRack.Spec spec(int linkMbps, int largestBucketCalls) {
        return new IdealRack.Spec(4, linkMbps, 200, Workloads.W4.truncatedAt(1_000_000), 0.8, 1, 1_000,
                largestBucketCalls);
    }

    @Test
    void theSimulatedRackIsTheEmulatedOnesHostsRateAndBuffers() {
        RackSpec rack = spec(25, 10).rack();
        assertEquals(4, rack.hosts());
        assertEquals(25, rack.linkMbps());
        assertEquals(8L * 200 * 1_514, rack.portBufferBytes()); // eight queues of 200 frames, as netlab's ports
        assertEquals(4 * rack.portBufferBytes(), rack.sharedBufferBytes()); // no switch-wide limit there
        // 1,542 wire bytes at 25 Mbit/s: 493.44 us
        assertEquals(493_440, rack.serializationNanos(1_542), 1e-6);
        assertEquals("4 hosts x 25 Mb/s", rack.toString().substring(0, 17));
    }

    @Test
    void theMeasuredWindowHalvesWhenTheRateDoubles() {
        double at25 = IdealRack.measuredSeconds(spec(25, 500));
        double at50 = IdealRack.measuredSeconds(spec(50, 500));
        assertEquals(2.0, at25 / at50, 1e-9);
        assertEquals(2.0, IdealRack.measuredSeconds(spec(50, 1_000)) / at50, 1e-9);
        SimulationPlan plan = spec(50, 500).plan();
        assertEquals(plan.durationNanos() / 10, plan.warmupNanos());
        assertEquals(LoadBasis.DATA, plan.basis());
    }

    /** A short run: every bucket has calls, none beats the idle rack, the unloaded RTT grows with the length. */
    @Test
    void aShortRunGivesSlowdownRowsForEveryBucket() {
        IdealRack.Result result = IdealRack.run(new IdealRack.Spec(4, 50, 200, Workloads.W4.truncatedAt(100_000), 0.8,
                1, 1_000, 20), null);
        assertEquals(0, result.simulation().failed());
        List<SlowdownCsv.Row> rows = result.slowdownRows("homa-ideal");
        assertEquals(9, rows.size());
        for (SlowdownCsv.Row row : rows) {
            assertEquals("homa-ideal", row.protocol());
            assertTrue(row.count() > 0, "bucket " + row.bucketMaxBytes() + " is empty");
            assertTrue(row.p50() >= 0.99 && row.p99() >= row.p50(), row.toString());
            assertTrue(row.unloadedMicros() > 0, row.toString());
        }
        for (int i = 1; i < rows.size(); i++) {
            assertTrue(rows.get(i).unloadedMicros() >= rows.get(i - 1).unloadedMicros(), rows.get(i).toString());
        }
    }

    @Test
    void refusesARackThatCannotExist() {
        assertThrows(IllegalArgumentException.class, () -> new IdealRack.Spec(1, 50, 200,
                Workloads.W4.truncatedAt(1_000_000), 0.8, 1, 1_000, 500));
        assertThrows(IllegalArgumentException.class, () -> new IdealRack.Spec(4, 50, 200,
                Workloads.W4.truncatedAt(1_000_000), 1.2, 1, 1_000, 500));
    }
}
