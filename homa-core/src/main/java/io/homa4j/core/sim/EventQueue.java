package io.homa4j.core.sim;

import java.util.Arrays;

/**
 * The pending {@link SimEvent}s ordered by (time, sequence): deterministic, and an event already queued can be
 * moved or removed cheaply (a host's wake time changes after almost every packet).
 *
 * <p>Two parts. Events due within {@link #NEAR_HORIZON_PICOS} of the earliest near event (the links, the switch's
 * ports, the pacers' wake-ups) sit in a ring of buckets {@link #BUCKET_PICOS} wide, each a list sorted by (time,
 * sequence); the rest (timer ticks, the load generators' arrivals, anything scheduled before the ring's start) sit
 * in an indexed binary min-heap. The first event is the earlier of the ring's and the heap's. Why the ring: at 80%
 * load a link or port reschedules itself a packet's serialization time ahead (125 ns at 100 Gb/s), behind most of
 * the ~50 events pending, so in a heap nearly every event would sift down its whole depth; here it is unlinked from
 * one short list and appended to another.
 */
final class EventQueue {
    /** Width of one ring bucket: 4,096 ps (a 1,500-byte packet takes 120 ns, about 30 buckets, at 100 Gb/s). */
    private static final int BUCKET_SHIFT = 12;
    static final long BUCKET_PICOS = 1L << BUCKET_SHIFT;
    private static final int BUCKETS = 2048;
    private static final int BUCKET_MASK = BUCKETS - 1;
    /** How far ahead of the ring's start an event goes into the ring: 8.4 us, more than a pacer's queue. */
    static final long NEAR_HORIZON_PICOS = BUCKETS * BUCKET_PICOS;
    /** {@link SimEvent#heapIndex} of an event in the ring. */
    static final int IN_RING = -2;

    private SimEvent[] heap = new SimEvent[256];
    private int heapSize;
    /** Each bucket's earliest event; a bucket holds a few events at most (4 ns of 125 ns per packet), so no tail. */
    private final SimEvent[] bucketFirst = new SimEvent[BUCKETS];
    /** Bit i set: bucket i holds an event. */
    private final long[] occupied = new long[BUCKETS / 64];
    /**
     * Absolute bucket number ({@code time >> BUCKET_SHIFT}) where the ring starts: every event in the ring lies in
     * {@code [ringStart, ringStart + BUCKETS)}, and the buckets before the first occupied one are empty.
     */
    private long ringStart;
    private int ringSize;
    private long nextSequence;

    int size() {
        return heapSize + ringSize;
    }

    boolean isEmpty() {
        return heapSize + ringSize == 0;
    }

    /** Schedules {@code event} at {@code timePicos}, moving it if it is already scheduled. */
    void schedule(SimEvent event, long timePicos) {
        if (ringSize == 0) {
            ringStart = timePicos >> BUCKET_SHIFT; // an empty ring may start anywhere; after idle time, here
        }
        long offset = (timePicos >> BUCKET_SHIFT) - ringStart;
        boolean inRingRange = offset >= 0 && offset < BUCKETS;
        int index = event.heapIndex;
        if (index == IN_RING) {
            unlink(event);
        } else if (index >= 0) {
            if (!inRingRange) {
                event.timePicos = timePicos;
                event.sequence = nextSequence++;
                // A rescheduled event gets a new, larger sequence, so it may only need to move down when later.
                siftUp(index);
                siftDown(event.heapIndex);
                return;
            }
            removeFromHeap(index);
        }
        event.timePicos = timePicos;
        event.sequence = nextSequence++;
        if (inRingRange) {
            link(event, (int) (timePicos >> BUCKET_SHIFT) & BUCKET_MASK);
        } else {
            addToHeap(event);
        }
    }

    /** Removes {@code event} if it is scheduled. */
    void cancel(SimEvent event) {
        int index = event.heapIndex;
        if (index == IN_RING) {
            unlink(event);
        } else if (index >= 0) {
            removeFromHeap(index);
        }
    }

    /** Time of the earliest event; only valid when not empty. */
    long peekTimePicos() {
        return first().timePicos;
    }

    /** The earliest event, left in the queue; only valid when not empty. */
    SimEvent first() {
        if (ringSize == 0) {
            return heap[0];
        }
        SimEvent near = firstInRing();
        if (heapSize == 0) {
            return near;
        }
        SimEvent far = heap[0];
        return before(far, near) ? far : near;
    }

    /** Removes and returns the earliest event, or null. */
    SimEvent poll() {
        if (isEmpty()) {
            return null;
        }
        SimEvent first = first();
        cancel(first);
        return first;
    }

    private static boolean before(SimEvent a, SimEvent b) {
        return a.timePicos < b.timePicos || (a.timePicos == b.timePicos && a.sequence < b.sequence);
    }

    // ------------------------------------------------------------------------------------------------ the ring

    /** The first event of the first occupied bucket; moves the ring's start there. The ring is not empty. */
    private SimEvent firstInRing() {
        int startSlot = (int) ringStart & BUCKET_MASK;
        int word = startSlot >>> 6;
        long bits = occupied[word] & (-1L << startSlot);
        // At most one full turn: the ring holds an event, and the start's own word is looked at again last.
        for (int turns = 0; bits == 0 && turns < occupied.length; turns++) {
            word = (word + 1) & (occupied.length - 1);
            bits = occupied[word];
        }
        int slot = (word << 6) + Long.numberOfTrailingZeros(bits);
        ringStart += (slot - startSlot) & BUCKET_MASK;
        return bucketFirst[slot];
    }

    /** Puts {@code event} into bucket {@code slot}, behind every event there of the same or an earlier time. */
    private void link(SimEvent event, int slot) {
        // The event has the largest sequence yet, so among equal times it goes last.
        SimEvent previous = null;
        SimEvent next = bucketFirst[slot];
        while (next != null && next.timePicos <= event.timePicos) {
            previous = next;
            next = next.ringNext;
        }
        event.ringPrevious = previous;
        event.ringNext = next;
        if (previous == null) {
            bucketFirst[slot] = event;
            occupied[slot >>> 6] |= 1L << slot;
        } else {
            previous.ringNext = event;
        }
        if (next != null) {
            next.ringPrevious = event;
        }
        event.heapIndex = IN_RING;
        ringSize++;
    }

    private void unlink(SimEvent event) {
        int slot = (int) (event.timePicos >> BUCKET_SHIFT) & BUCKET_MASK;
        SimEvent previous = event.ringPrevious;
        SimEvent next = event.ringNext;
        if (previous == null) {
            bucketFirst[slot] = next;
            if (next == null) {
                occupied[slot >>> 6] &= ~(1L << slot);
            }
        } else {
            previous.ringNext = next;
        }
        if (next != null) {
            next.ringPrevious = previous;
        }
        event.ringPrevious = null;
        event.ringNext = null;
        event.heapIndex = -1;
        ringSize--;
    }

    // ------------------------------------------------------------------------------------------------ the heap

    private void addToHeap(SimEvent event) {
        if (heapSize == heap.length) {
            heap = Arrays.copyOf(heap, heapSize * 2);
        }
        int index = heapSize++;
        heap[index] = event;
        event.heapIndex = index;
        siftUp(index);
    }

    private void removeFromHeap(int index) {
        SimEvent event = heap[index];
        SimEvent last = heap[--heapSize];
        heap[heapSize] = null;
        event.heapIndex = -1;
        if (index < heapSize) {
            heap[index] = last;
            last.heapIndex = index;
            siftUp(index);
            siftDown(last.heapIndex);
        }
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
        int half = heapSize >>> 1;
        while (index < half) {
            int child = 2 * index + 1;
            SimEvent c = heap[child];
            int right = child + 1;
            if (right < heapSize && before(heap[right], c)) {
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
