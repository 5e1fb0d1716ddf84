package io.homa4j.core.sim;

import java.util.Arrays;

/**
 * An indexed binary min-heap of {@link SimEvent}s ordered by (time, sequence): deterministic, and an event already
 * in the heap can be moved or removed in O(log n) (a host's wake time changes after almost every packet).
 */
final class EventQueue {
    private SimEvent[] heap = new SimEvent[256];
    private int size;
    private long nextSequence;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Schedules {@code event} at {@code timePicos}, moving it if it is already scheduled. */
    void schedule(SimEvent event, long timePicos) {
        event.timePicos = timePicos;
        event.sequence = nextSequence++;
        int index = event.heapIndex;
        if (index < 0) {
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
            }
            index = size++;
            heap[index] = event;
            event.heapIndex = index;
            siftUp(index);
        } else {
            // A rescheduled event gets a new, larger sequence, so it may only need to move down when later.
            siftUp(index);
            siftDown(event.heapIndex);
        }
    }

    /** Removes {@code event} if it is scheduled. */
    void cancel(SimEvent event) {
        int index = event.heapIndex;
        if (index < 0) {
            return;
        }
        SimEvent last = heap[--size];
        heap[size] = null;
        event.heapIndex = -1;
        if (index < size) {
            heap[index] = last;
            last.heapIndex = index;
            siftUp(index);
            siftDown(last.heapIndex);
        }
    }

    /** Time of the earliest event; only valid when not empty. */
    long peekTimePicos() {
        return heap[0].timePicos;
    }

    /** The earliest event, left in the queue; only valid when not empty. */
    SimEvent first() {
        return heap[0];
    }

    /** Removes and returns the earliest event, or null. */
    SimEvent poll() {
        if (size == 0) {
            return null;
        }
        SimEvent first = heap[0];
        SimEvent last = heap[--size];
        heap[size] = null;
        first.heapIndex = -1;
        if (size > 0) {
            heap[0] = last;
            last.heapIndex = 0;
            siftDown(0);
        }
        return first;
    }

    private static boolean before(SimEvent a, SimEvent b) {
        return a.timePicos < b.timePicos || (a.timePicos == b.timePicos && a.sequence < b.sequence);
    }

    private void siftUp(int index) {
        SimEvent event = heap[index];
        while (index > 0) {
            int parent = (index - 1) >>> 1;
            SimEvent p = heap[parent];
            if (!before(event, p)) {
                break;
            }
            heap[index] = p;
            p.heapIndex = index;
            index = parent;
        }
        heap[index] = event;
        event.heapIndex = index;
    }

    private void siftDown(int index) {
        SimEvent event = heap[index];
        int half = size >>> 1;
        while (index < half) {
            int child = 2 * index + 1;
            SimEvent c = heap[child];
            int right = child + 1;
            if (right < size && before(heap[right], c)) {
                child = right;
                c = heap[child];
            }
            if (!before(c, event)) {
                break;
            }
            heap[index] = c;
            c.heapIndex = index;
            index = child;
        }
        heap[index] = event;
        event.heapIndex = index;
    }
}
