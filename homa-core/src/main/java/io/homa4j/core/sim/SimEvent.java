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
    /** Position in the {@link EventQueue} heap, -1 when not scheduled. */
    int heapIndex = -1;

    final boolean isScheduled() {
        return heapIndex >= 0;
    }

    abstract void fire(SimulatedNetwork network);
}
