package io.homa4j.bench.simulate;

import io.homa4j.core.RpcFailure;

/** Where a {@link RackNode} reports the end of each call it started. Network thread only. */
interface CallObserver {
    /** A call of {@code length} bytes arrived (is due) at {@code intendedNanos}. */
    default void arrived(int length, long intendedNanos) {
    }

    /** A response arrived at {@code endNanos} for a request of {@code length} bytes due at {@code intendedNanos}. */
    void completed(int length, long intendedNanos, long endNanos);

    /** The call failed (or the engine refused it); it has no RTT. */
    void failed(int length, long intendedNanos, RpcFailure failure, long nowNanos);
}
