package io.homa4j.core.internal.rpc;

/**
 * RPC id conventions. A client allocates even ids (never 0, so 0 can mean "none" on the wire); the server side
 * of the same RPC uses {@code id ^ 1} in the packets it sends, so the low bit of a received id tells which side
 * sent it: even = from a client, odd = from a server.
 */
final class RpcIds {
    private static final long MASK_61_BITS = (1L << 61) - 1;
    private long next;

    /**
     * Ids start at {@code 2 x nowNanos + 2} (61 bits of the clock), so an engine that replaces a crashed one on
     * the same address (same clock, later time) never reuses an id of its predecessor: that would need more than
     * one call per two nanoseconds. A late response to a previous incarnation's call is then unknown to the new
     * engine instead of being taken for the response of a new call.
     */
    public RpcIds(long nowNanos) {
        this.next = ((nowNanos & MASK_61_BITS) << 1) + 2;
    }

    /** The next client id: even, increasing by 2, never 0. */
    public long nextClientId() {
        long id = next;
        next += 2;
        if (next <= 0) {
            next = 2;
        }
        return id;
    }

    /** Whether a received id was sent by a client (even). */
    public static boolean fromClient(long wireId) {
        return (wireId & 1) == 0;
    }

    /** The local id of an RPC whose packets carry {@code wireId} from the other side. */
    public static long localId(long wireId) {
        return wireId ^ 1;
    }
}
