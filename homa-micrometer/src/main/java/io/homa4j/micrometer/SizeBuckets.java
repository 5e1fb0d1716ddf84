package io.homa4j.micrometer;

import java.util.Arrays;

/**
 * How call timers split calls by message size: ascending upper bounds in bytes, each bucket holding the sizes
 * above the previous bound up to and including its own, plus one bucket for everything larger. The bucket's
 * label (the {@code size} tag) names its range, for example {@code 0-1024}, {@code 1025-65536}, {@code 65537+}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SizeBuckets {
    /** 1 KiB, 64 KiB, 1 MiB: short messages, medium, and the bulk transfers Homa schedules last. */
    public static final SizeBuckets DEFAULT = of(1_024, 65_536, 1_048_576);

    private final long[] upperBounds;
    private final String[] labels;

    private SizeBuckets(long[] upperBounds) {
        this.upperBounds = upperBounds;
        this.labels = new String[upperBounds.length + 1];
        long low = 0;
        for (int i = 0; i < upperBounds.length; i++) {
            labels[i] = low + "-" + upperBounds[i];
            low = upperBounds[i] + 1;
        }
        labels[upperBounds.length] = low + "+";
    }

    /**
     * Buckets with the given upper bounds.
     *
     * @param upperBounds strictly ascending, non-negative byte counts; none gives a single bucket {@code 0+}
     * @return the buckets
     * @throws IllegalArgumentException when the bounds are negative or not strictly ascending
     */
    public static SizeBuckets of(long... upperBounds) {
        long[] bounds = upperBounds.clone();
        for (int i = 0; i < bounds.length; i++) {
            if (bounds[i] < 0 || (i > 0 && bounds[i] <= bounds[i - 1])) {
                throw new IllegalArgumentException("size bucket bounds must be non-negative and strictly ascending: "
                        + Arrays.toString(bounds));
            }
        }
        return new SizeBuckets(bounds);
    }

    /** @return how many buckets there are (the bounds, plus one for larger sizes) */
    public int count() {
        return labels.length;
    }

    /**
     * @param bytes a message length
     * @return the index of the bucket holding it
     */
    public int indexOf(long bytes) {
        int i = 0;
        while (i < upperBounds.length && bytes > upperBounds[i]) {
            i++;
        }
        return i;
    }

    /**
     * @param index a bucket index
     * @return the bucket's label, used as the {@code size} tag
     */
    public String label(int index) {
        return labels[index];
    }

    @Override
    public String toString() {
        return "SizeBuckets" + Arrays.toString(labels);
    }
}
