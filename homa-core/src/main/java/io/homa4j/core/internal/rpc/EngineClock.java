package io.homa4j.core.internal.rpc;

/**
 * The engine's two clocks: the time of the engine call in progress (set from each call's {@code nowNanos}; the
 * engine reads no clock of its own) and the logical order in which messages, incoming and outgoing alike, came
 * into being (the ties of every SRPT ranking go to the oldest). Owned by {@code HomaEngine}, which sets the time;
 * engine thread only.
 */
public final class EngineClock {
    private final long startNanos;
    private long now;
    private long messageSequence;

    public EngineClock(long nowNanos) {
        this.startNanos = nowNanos;
        this.now = nowNanos;
    }

    /** The time of the engine call in progress. */
    public long now() {
        return now;
    }

    /** An engine call begins at {@code nowNanos}. */
    public void now(long nowNanos) {
        now = nowNanos;
    }

    /** Nanoseconds since the engine started, as RPC_UNKNOWN reports it. */
    public long age() {
        return Math.max(0, now - startNanos);
    }

    /** The next message's place in the arrival order. */
    long nextSequence() {
        return messageSequence++;
    }
}
