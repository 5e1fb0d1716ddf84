package io.homa4j.core.timer;

import io.homa4j.core.rpc.ClientRpc;

import java.util.Comparator;
import java.util.TreeSet;

/**
 * Client RPCs with a deadline, earliest first; removal is exact so finished calls do not linger.
 * Engine thread only.
 */
public final class DeadlineQueue {
    private final TreeSet<ClientRpc> byDeadline = new TreeSet<>(
            Comparator.comparingLong(ClientRpc::deadlineNanos).thenComparingLong(ClientRpc::id));

    public void add(ClientRpc rpc) {
        if (rpc.deadlineNanos() != Long.MAX_VALUE) {
            byDeadline.add(rpc);
        }
    }

    public void remove(ClientRpc rpc) {
        if (rpc.deadlineNanos() != Long.MAX_VALUE) {
            byDeadline.remove(rpc);
        }
    }

    /** The earliest RPC whose deadline is at or before {@code nowNanos}, removed; or null. */
    public ClientRpc pollExpired(long nowNanos) {
        if (byDeadline.isEmpty() || byDeadline.first().deadlineNanos() > nowNanos) {
            return null;
        }
        return byDeadline.pollFirst();
    }

    public long nextDeadlineNanos() {
        return byDeadline.isEmpty() ? Long.MAX_VALUE : byDeadline.first().deadlineNanos();
    }

    public void clear() {
        byDeadline.clear();
    }
}
