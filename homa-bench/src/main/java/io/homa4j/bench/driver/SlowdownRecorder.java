package io.homa4j.bench.driver;

/**
 * Every call's slowdown, as the Homa papers report it: its RTT over the unloaded RTT of its own length
 * ({@link RttByLength}), kept per length bucket in thousandths (slowdown x 1000) so that it shares
 * {@link LatencyRecorder}'s integer histograms, their precision and their files. {@link #record} may be called from
 * any thread.
 */
public final class SlowdownRecorder {
    /** A client's slowdown histograms, next to its {@code histograms.csv} and in the same format. */
    public static final String FILE_NAME = "slowdown-histograms.csv";

    private final RttByLength unloaded;
    private final LatencyRecorder milli;

    public SlowdownRecorder(LengthBuckets buckets, RttByLength unloaded) {
        this.unloaded = unloaded;
        this.milli = new LatencyRecorder(buckets);
    }

    /** Records the call's slowdown and returns it. */
    public double record(int length, long rttNanos) {
        double slowdown = rttNanos / unloaded.rttNanos(length);
        milli.record(length, Math.round(slowdown * 1_000));
        return slowdown;
    }

    /** Slowdown x 1000 per bucket. */
    public LatencyRecorder milli() {
        return milli;
    }

    public RttByLength unloaded() {
        return unloaded;
    }
}
