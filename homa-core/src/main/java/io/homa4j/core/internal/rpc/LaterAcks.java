package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * ACKs a client piggybacked on its requests, kept until the engine's driver has sent what the packets it was
 * handed made the engine send. A request's DATA packet carries the ACK of the client's previous call to the same
 * server; applying it frees that call's RPC, which touches memory unused since the previous response went out.
 * On an endpoint whose caches went cold between calls that costs microseconds, and the new request's handler and
 * response have no reason to wait for it.
 *
 * <p>Bounded: when full, the next ACK applies the ones kept at once. Engine thread only; no allocation per ACK.
 */
final class LaterAcks {
    /** More than a socket read's burst of requests rarely brings; a fuller list is applied at once. */
    static final int CAPACITY = 64;

    private final ServerCalls servers;
    private final InetSocketAddress[] from = new InetSocketAddress[CAPACITY];
    private final long[] clientIds = new long[CAPACITY];
    private int count;

    LaterAcks(ServerCalls servers) {
        this.servers = servers;
    }

    /** Keeps the ACK of {@code clientId} from {@code client} for {@link #apply}. */
    void add(InetSocketAddress client, long clientId) {
        if (count == CAPACITY) {
            apply();
        }
        from[count] = client;
        clientIds[count] = clientId;
        count++;
    }

    /** Applies every ACK kept, in arrival order. */
    void apply() {
        int n = count;
        count = 0;
        for (int i = 0; i < n; i++) {
            InetSocketAddress client = from[i];
            from[i] = null;
            servers.ack(client, clientIds[i]);
        }
    }

    /** Forgets every ACK kept (the engine freed all its RPCs). */
    void clear() {
        Arrays.fill(from, 0, count, null);
        count = 0;
    }
}
