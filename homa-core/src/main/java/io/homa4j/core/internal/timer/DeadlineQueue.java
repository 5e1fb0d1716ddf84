package io.homa4j.core.internal.timer;

import java.util.Comparator;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * Items with a deadline ({@code Long.MAX_VALUE}: none, not queued), earliest first, ties by a unique id; removal
 * is exact so finished items do not linger. Engine thread only.
 *
 * @param <T> what expires: a client RPC in the engine; the deadline and id must not change while queued
 */
public final class DeadlineQueue<T> {
    private final ToLongFunction<T> deadline;
    private final TreeSet<T> byDeadline;

    /**
     * @param deadline the item's absolute deadline
     * @param id       a unique id that orders items with equal deadlines
     */
    public DeadlineQueue(ToLongFunction<T> deadline, ToLongFunction<T> id) {
        this.deadline = deadline;
        this.byDeadline = new TreeSet<>(Comparator.comparingLong(deadline).thenComparingLong(id));
    }

    public void add(T item) {
        if (deadline.applyAsLong(item) != Long.MAX_VALUE) {
            byDeadline.add(item);
        }
    }

    public void remove(T item) {
        if (deadline.applyAsLong(item) != Long.MAX_VALUE) {
            byDeadline.remove(item);
        }
    }

    /** The earliest item whose deadline is at or before {@code nowNanos}, removed; or null. */
    public T pollExpired(long nowNanos) {
        if (byDeadline.isEmpty() || deadline.applyAsLong(byDeadline.first()) > nowNanos) {
            return null;
        }
        return byDeadline.pollFirst();
    }

    public long nextDeadlineNanos() {
        return byDeadline.isEmpty() ? Long.MAX_VALUE : deadline.applyAsLong(byDeadline.first());
    }

    public void clear() {
        byDeadline.clear();
    }
}
