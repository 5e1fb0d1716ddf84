package io.homa4j;

import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.transport.internal.EngineDriver;

import java.util.function.Supplier;

/**
 * The engine's metrics as the event loop last took them, for readers on other threads ({@link HomaEndpoint#metrics}).
 *
 * <p>The engine's counters change only in the loop's turns, so the snapshot is taken at the end of a turn rather
 * than on a timer: in the first turn that ends at least half an interval after the last snapshot, and by one
 * interval after it at the latest, when the driver wakes the loop for it ({@link #dueByNanos}) because no turn came
 * in time. A change is therefore published within one interval, an endpoint that makes calls now and then
 * publishes in the turns of its calls without a wake-up of its own, and an idle endpoint, with nothing changed since
 * its last snapshot, is never woken for one. A periodic task would wake every endpoint, idle or not, every interval.
 *
 * <p>Threading: {@link #latest} from any thread; everything else on the event loop.
 */
final class MetricsPublication implements EngineDriver.TurnWork {
    private final Supplier<MetricsSnapshot> engineMetrics;
    private final long intervalNanos;
    private volatile MetricsSnapshot published;
    private long publishedAtNanos;
    /** A turn ended since the last snapshot, so the counters may have changed. */
    private boolean turnsSincePublished;

    /** Takes the first snapshot at {@code nowNanos}. */
    MetricsPublication(Supplier<MetricsSnapshot> engineMetrics, long intervalNanos, long nowNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("intervalNanos must be positive: " + intervalNanos);
        }
        this.engineMetrics = engineMetrics;
        this.intervalNanos = intervalNanos;
        publish(nowNanos);
    }

    /** The last snapshot taken. */
    MetricsSnapshot latest() {
        return published;
    }

    /** Takes a snapshot now. */
    void publish(long nowNanos) {
        published = engineMetrics.get();
        publishedAtNanos = nowNanos;
        turnsSincePublished = false;
    }

    @Override
    public void turnEnded(long nowNanos) {
        turnsSincePublished = true;
        if (nowNanos - publishedAtNanos >= intervalNanos / 2) {
            publish(nowNanos);
        }
    }

    @Override
    public long dueByNanos() {
        return turnsSincePublished ? publishedAtNanos + intervalNanos : Long.MAX_VALUE;
    }
}
