package io.homa4j.bench.driver;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * One HdrHistogram of round-trip times (nanoseconds) per length bucket. {@link #record} may be called from any
 * thread (the transports' event loops complete the calls); {@link #snapshot} copies for reporting.
 */
public final class LatencyRecorder {
    /** Longest RTT tracked exactly; longer ones are recorded as this value (and counted in {@link #clamped}). */
    public static final long HIGHEST_TRACKABLE_NANOS = TimeUnit.SECONDS.toNanos(120);
    public static final int SIGNIFICANT_DIGITS = 3;

    private final LengthBuckets buckets;
    private final ConcurrentHistogram[] histograms;
    private final java.util.concurrent.atomic.LongAdder clamped = new java.util.concurrent.atomic.LongAdder();

    public LatencyRecorder(LengthBuckets buckets) {
        this.buckets = buckets;
        this.histograms = new ConcurrentHistogram[buckets.count()];
        for (int i = 0; i < histograms.length; i++) {
            histograms[i] = new ConcurrentHistogram(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
        }
    }

    /** Empty histogram with the recorder's range and precision. */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
    }

    public LengthBuckets buckets() { return buckets; }

    public void record(int messageLength, long rttNanos) {
        long value = Math.max(1, rttNanos);
        if (value > HIGHEST_TRACKABLE_NANOS) {
            clamped.increment();
            value = HIGHEST_TRACKABLE_NANOS;
        }
        histograms[buckets.indexOf(messageLength)].recordValue(value);
    }

    /** RTTs longer than {@link #HIGHEST_TRACKABLE_NANOS}, recorded as that value. */
    public long clamped() { return clamped.sum(); }

    /** A copy of bucket {@code index}'s histogram. */
    public Histogram snapshot(int index) {
        Histogram copy = newHistogram();
        copy.add(histograms[index]);
        return copy;
    }
}
