package io.homa4j.core.rpc;

/**
 * RPC id conventions. A client allocates even ids (never 0, so 0 can mean "none" on the wire); the server side
 * of the same RPC uses {@code id ^ 1} in the packets it sends, so the low bit of a received id tells which side
 * sent it: even = from a client, odd = from a server.
 */
public final class RpcIds {
    private long next = 2;

    /** The next client id: 2, 4, 6, ... (wraps far beyond any engine's lifetime). */
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
