package io.homa4j.core.sim;

/**
 * Something that happens at one virtual instant. Events are long-lived and reused (one wake event per host, one
 * transmit-done event per port, pooled packets), so the event loop allocates nothing per packet.
 */
abstract class SimEvent {
    /** Virtual time in picoseconds, so serialization times of small packets at 100 Gb/s stay exact. */
    long timePicos;
    /** Tie-break: events at one instant fire in the order they were scheduled. */
    long sequence;
    /** Position in the {@link EventQueue}'s heap, {@link EventQueue#IN_RING} in its ring, -1 when not scheduled. */
    int heapIndex = -1;
    /** Neighbours in an {@link EventQueue} ring bucket (null outside the ring). */
    SimEvent ringPrevious;
    SimEvent ringNext;
    /**
     * Fires while still first in the queue and, in {@link #fire}, either reschedules itself (one move in the queue:
     * a sift in its heap or a relink in its ring, instead of a removal and an insertion) or takes itself out. For the
     * links and ports, which usually have the next packet waiting. Other events are taken out before they fire.
     */
    final boolean firesInPlace;

    SimEvent() {
        this(false);
    }

    SimEvent(boolean firesInPlace) {
        this.firesInPlace = firesInPlace;
    }

    final boolean isScheduled() {
        return heapIndex != -1;
    }

    abstract void fire(SimulatedNetwork network);
}
