package io.homa4j.bench.simulate;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.workload.Workloads;
import io.homa4j.core.HomaConfig;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** On an idle network the tool's slowdown is 1.0 within 1% for every message length. */
class IdleSlowdownTest {
    private static final RackSpec RACK = RackSpec.defaults();

    /** The interpolated table against direct idle measurement at random lengths over six decades. */
    @Test
    void unloadedTableMatchesDirectMeasurementAtRandomLengths() {
        HomaConfig config = ProtocolSetup.homa().homaConfig(RACK, 500_000);
        UnloadedRtt table = UnloadedRtt.measure(RACK, config, 500_000);
        SplittableRandom random = new SplittableRandom(11);
        try (UnloadedRtt.IdleProbe probe = new UnloadedRtt.IdleProbe(RACK, config, 500_000)) {
            for (int i = 0; i < 80; i++) {
                int length = (int) Math.min(500_000, Math.round(Math.exp(random.nextDouble() * Math.log(5e5))));
                double measured = probe.rttNanos(length);
                double ratio = measured / table.rttNanos(length);
                assertTrue(ratio >= 0.99 && ratio <= 1.01,
                        "length " + length + ": measured " + measured + " ns, table " + table.rttNanos(length));
            }
        }
    }

    /**
     * The whole tool at a tiny load: in every bucket the median slowdown is 1 within 1%, no call beats the idle
     * network, and all but the rare calls that happened to meet another one in a queue are within 1% of 1.
     */
    @Test
    void tinyLoadGivesSlowdownOneInEveryBucket() {
        SimulationPlan plan = new SimulationPlan(RACK.withHosts(8), ProtocolSetup.homa(),
                Workloads.W4.truncatedAt(300_000), 0.0005, LoadBasis.WIRE, 0, 300_000_000L, 100_000_000L, 3, 1_000);
        UnloadedRtt unloaded = UnloadedRtt.measure(RACK, plan.homaConfig(), plan.maxMessage());
        SimulationResult result = new RackSimulation(plan, unloaded).run(null);

        assertEquals(0, result.failed());
        assertEquals(0, result.unfinished());
        LengthBuckets buckets = result.slowdownMilli().buckets();
        long within = 0;
        long total = 0;
        for (int i = 0; i < buckets.count(); i++) {
            Histogram h = result.slowdownMilli().snapshot(i);
            within += h.getCountBetweenValues(990, 1010);
            total += h.getTotalCount();
            assertTrue(h.getTotalCount() >= 5, "bucket " + buckets.upperBound(i) + " has " + h.getTotalCount());
            double p50 = h.getValueAtPercentile(50) / 1e3;
            double min = h.getMinValue() / 1e3;
            String where = "bucket <= " + buckets.upperBound(i) + " B: min " + min + ", p50 " + p50;
            assertTrue(min >= 0.99, where);
            assertTrue(p50 >= 0.99 && p50 <= 1.01, where);
        }
        assertTrue(total >= 200, "calls measured: " + total);
        assertTrue(within >= 0.97 * total, within + " of " + total + " calls within 1% of the idle RTT");
    }
}
