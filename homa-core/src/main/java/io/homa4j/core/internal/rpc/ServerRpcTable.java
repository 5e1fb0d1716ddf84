package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The live server RPCs by client address and client id (ids are only unique per client). An open-addressing table
 * of the RPCs themselves, which carry their key, so adding, finding and removing an RPC allocate nothing once the
 * table has grown; the timers walk the RPCs oldest first along an {@link AgeList} threaded through them. Owned by
 * {@link ServerCalls}; engine thread only.
 */
final class ServerRpcTable {
    private static final long SPREAD = 0x9E3779B97F4A7C15L; // 2^64 / golden ratio

    /** Null marks a free slot. */
    private ServerRpc[] rpcs = new ServerRpc[16];
    private int size;
    private final AgeList<ServerRpc> byAge = new AgeList<>();

    int size() {
        return size;
    }

    /** The RPC of {@code clientId} from {@code client}, or null. */
    ServerRpc get(InetSocketAddress client, long clientId) {
        int mask = rpcs.length - 1;
        for (int i = slot(client, clientId, mask); ; i = (i + 1) & mask) {
            ServerRpc rpc = rpcs[i];
            if (rpc == null) {
                return null;
            }
            if (rpc.clientId() == clientId && rpc.clientAddress().equals(client)) {
                return rpc;
            }
        }
    }

    /** Whether {@code rpc} itself (not only an RPC with its key) is in the table. */
    boolean holds(ServerRpc rpc) {
        return get(rpc.clientAddress(), rpc.clientId()) == rpc;
    }

    /** Adds {@code rpc}, whose key must not be in the table. */
    void add(ServerRpc rpc) {
        if (2 * (size + 1) > rpcs.length) {
            grow();
        }
        insert(rpc);
        size++;
        byAge.append(rpc);
    }

    /** Removes {@code rpc} if it is in the table. */
    void remove(ServerRpc rpc) {
        int mask = rpcs.length - 1;
        int i = slot(rpc.clientAddress(), rpc.clientId(), mask);
        while (rpcs[i] != rpc) {
            if (rpcs[i] == null) {
                return;
            }
            i = (i + 1) & mask;
        }
        byAge.remove(rpc);
        // Backward-shift deletion (LinearProbing): later entries of the probe run move up into the hole.
        int hole = i;
        for (int j = (hole + 1) & mask; rpcs[j] != null; j = (j + 1) & mask) {
            int home = slot(rpcs[j].clientAddress(), rpcs[j].clientId(), mask);
            if (!LinearProbing.staysBehindHole(hole, j, home)) {
                rpcs[hole] = rpcs[j];
                hole = j;
            }
        }
        rpcs[hole] = null;
        size--;
    }

    /** The only RPC, or null when there are none or several. */
    ServerRpc onlyRpc() {
        return size == 1 ? byAge.oldest() : null;
    }

    /** A copy of the live RPCs, oldest first, safe to walk while RPCs are freed. */
    List<ServerRpc> snapshot() {
        return byAge.snapshot();
    }

    static int slot(InetSocketAddress client, long clientId, int mask) {
        return (int) (((clientId ^ ((long) client.hashCode() << 32)) * SPREAD) >>> 32) & mask;
    }

    private void insert(ServerRpc rpc) {
        int mask = rpcs.length - 1;
        int i = slot(rpc.clientAddress(), rpc.clientId(), mask);
        while (rpcs[i] != null) {
            i = (i + 1) & mask;
        }
        rpcs[i] = rpc;
    }

    private void grow() {
        ServerRpc[] old = rpcs;
        rpcs = new ServerRpc[old.length * 2];
        for (ServerRpc rpc : old) {
            if (rpc != null) {
                insert(rpc);
            }
        }
    }
}
