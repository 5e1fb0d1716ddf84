package io.homa4j.core.internal.timer;

import io.homa4j.core.internal.order.IndexedHeap;

import java.util.function.ToLongFunction;

/**
 * Items with a deadline ({@code Long.MAX_VALUE}: none, not queued), earliest first, ties by a unique id; removal
 * is exact so finished items do not linger. The items carry their own place in the queue (an
 * {@link IndexedHeap.Position}), so queueing one allocates nothing. Engine thread only.
 *
 * @param <T> what expires: a client RPC in the engine; the deadline and id must not change while queued
 */
public final class DeadlineQueue<T> {
    private final ToLongFunction<T> deadline;
    private final IndexedHeap<T> byDeadline;

    /**
     * @param deadline the item's absolute deadline
     * @param id       a unique id that orders items with equal deadlines
     * @param position the item's field that holds its place in this queue
     */
    public DeadlineQueue(ToLongFunction<T> deadline, ToLongFunction<T> id, IndexedHeap.Position<T> position) {
        this.deadline = deadline;
        this.byDeadline = new IndexedHeap<>((a, b) -> {
            int byDeadline = Long.compare(deadline.applyAsLong(a), deadline.applyAsLong(b));
            return byDeadline != 0 ? byDeadline : Long.compare(id.applyAsLong(a), id.applyAsLong(b));
        }, position);
    }

    public void add(T item) {
        if (deadline.applyAsLong(item) != Long.MAX_VALUE) {
            byDeadline.add(item);
        }
    }

    public void remove(T item) {
        byDeadline.remove(item);
    }

    /** The earliest item whose deadline is at or before {@code nowNanos}, removed; or null. */
    public T pollExpired(long nowNanos) {
        T first = byDeadline.first();
        if (first == null || deadline.applyAsLong(first) > nowNanos) {
            return null;
        }
        byDeadline.remove(first);
        return first;
    }

    public long nextDeadlineNanos() {
        T first = byDeadline.first();
        return first == null ? Long.MAX_VALUE : deadline.applyAsLong(first);
    }

    public void clear() {
        byDeadline.clear();
    }
}
