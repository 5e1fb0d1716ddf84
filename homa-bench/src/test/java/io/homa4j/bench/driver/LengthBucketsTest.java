package io.homa4j.bench.driver;

import io.homa4j.bench.workload.Workload;
import io.homa4j.bench.workload.Workloads;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LengthBucketsTest {
    @Test
    void w4TruncatedAtOneMegabyteHasTenBucketsByCumulativeFraction() {
        LengthBuckets b = LengthBuckets.forWorkload(Workloads.W4.truncatedAt(1_000_000));
        assertArrayEquals(new int[] {315, 376, 502, 561, 662, 960, 6387, 49_408, 120_373, 1_000_000},
                b.upperBounds());
    }

    @Test
    void lengthsGoIntoTheFirstBucketWhoseBoundIsNotSmaller() {
        LengthBuckets b = new LengthBuckets(100, 1_000, 10_000);
        assertEquals(0, b.indexOf(1));
        assertEquals(0, b.indexOf(100));
        assertEquals(1, b.indexOf(101));
        assertEquals(1, b.indexOf(1_000));
        assertEquals(2, b.indexOf(1_001));
        assertEquals(2, b.indexOf(10_000));
        assertEquals(2, b.indexOf(50_000), "longer than every bound: last bucket");
    }

    @Test
    void bucketsHoldTheirShareOfSampledMessages() {
        Workload w = Workloads.W4.truncatedAt(1_000_000);
        LengthBuckets b = LengthBuckets.forWorkload(w);
        long[] counts = new long[b.count()];
        SplittableRandom random = new SplittableRandom(9);
        int n = 500_000;
        for (int i = 0; i < n; i++) {
            counts[b.indexOf(w.sample(random))]++;
        }
        double[] expected = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
        for (int i = 0; i < counts.length; i++) {
            assertEquals(expected[i], counts[i] / (double) n, 0.005, "bucket " + b.upperBound(i));
        }
    }

    @Test
    void fixedSizeWorkloadHasOneBucket() {
        assertArrayEquals(new int[] {4096}, LengthBuckets.forWorkload(Workloads.parse("4096")).upperBounds());
    }

    @Test
    void boundsMustAscend() {
        assertThrows(IllegalArgumentException.class, () -> new LengthBuckets(10, 10));
        assertThrows(IllegalArgumentException.class, LengthBuckets::new);
    }
}
