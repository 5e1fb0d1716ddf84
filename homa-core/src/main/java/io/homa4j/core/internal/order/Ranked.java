package io.homa4j.core.internal.order;

import java.util.Comparator;

/**
 * A message as Homa's orders rank it: by the bytes it still has to move (unsent on the sender, unreceived on the
 * receiver), then by creation order. Implemented by the incoming and the outgoing message.
 */
public interface Ranked {
    /** Bytes still to move: the SRPT key. */
    int remainingBytes();

    /** Creation order: the tie-break, and the whole key of the oldest-first order. */
    long sequence();

    // Spelled out rather than Comparator.comparingInt(..).thenComparingLong(..): the same order, without two
    // more levels of lambda calls on every comparison (these trees are updated on every DATA packet).
    /** Shortest remaining first, ties to the oldest. */
    Comparator<Ranked> SRPT = (a, b) -> {
        int byRemaining = Integer.compare(a.remainingBytes(), b.remainingBytes());
        return byRemaining != 0 ? byRemaining : Long.compare(a.sequence(), b.sequence());
    };

    /** Oldest first. */
    Comparator<Ranked> AGE = (a, b) -> Long.compare(a.sequence(), b.sequence());
}
