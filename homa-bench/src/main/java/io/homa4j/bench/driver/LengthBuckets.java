package io.homa4j.bench.driver;

import io.homa4j.bench.workload.Workload;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * Message-length buckets: bucket {@code i} holds lengths in {@code (bound[i-1], bound[i]]}. Bounds come from the
 * workload's quantiles at cumulative fractions 0.1, 0.2, ..., 0.9, 0.99 and 1, with duplicates dropped, so each
 * bucket holds about a tenth of the messages and the tail (where the largest messages live) gets two more. Immutable.
 */
public final class LengthBuckets {
    /**
     * No bound at 0.95: the largest bucket holds the top tenth of the messages (for W4 at 1 MB: 120 KB to 1 MB,
     * 28% of them exactly 1 MB), so a run of a few minutes has the 500+ calls there that a P99 needs; with a
     * bound at 0.95 the rack's 1 MB bucket held about 240 calls per minute and its "P99" was its slowest few.
     */
    private static final double[] FRACTIONS = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1.0};

    private final int[] upperBounds;

    public LengthBuckets(int... upperBounds) {
        if (upperBounds.length == 0) {
            throw new IllegalArgumentException("at least one bucket");
        }
        for (int i = 1; i < upperBounds.length; i++) {
            if (upperBounds[i] <= upperBounds[i - 1]) {
                throw new IllegalArgumentException("bucket bounds must ascend strictly: " + Arrays.toString(upperBounds));
            }
        }
        this.upperBounds = upperBounds.clone();
    }

    /** Buckets spaced by cumulative fraction of the (truncated) workload's messages. */
    public static LengthBuckets forWorkload(Workload workload) {
        TreeSet<Integer> bounds = new TreeSet<>();
        for (double f : FRACTIONS) {
            bounds.add(workload.quantile(f));
        }
        return new LengthBuckets(bounds.stream().mapToInt(Integer::intValue).toArray());
    }

    public int count() { return upperBounds.length; }

    /** Largest length in bucket {@code index}. */
    public int upperBound(int index) { return upperBounds[index]; }

    /** Bucket of a message {@code length} bytes long; longer than the last bound goes into the last bucket. */
    public int indexOf(int length) {
        int i = Arrays.binarySearch(upperBounds, length);
        if (i >= 0) {
            return i;
        }
        return Math.min(-i - 1, upperBounds.length - 1);
    }

    public int[] upperBounds() { return upperBounds.clone(); }

    @Override
    public String toString() {
        return Arrays.toString(upperBounds);
    }
}
