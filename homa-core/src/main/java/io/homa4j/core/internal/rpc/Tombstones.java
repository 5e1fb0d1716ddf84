package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The most recent server RPCs whose handler ran and that were freed: a delayed duplicate of such a request is
 * refused rather than handled twice, and a client asking about one learns the server may have run it. Bounded;
 * the oldest are forgotten first. The keys live in a ring of {@link #CAPACITY} (client, id) pairs with an
 * open-addressing index into it, so remembering an RPC allocates nothing. Owned by {@link ServerCalls}; engine
 * thread only.
 */
final class Tombstones {
    /** RPCs remembered. */
    static final int CAPACITY = 4096;
    /** Index slots: twice the capacity keeps probe runs short. */
    private static final int SLOTS = 2 * CAPACITY;

    private final InetSocketAddress[] clients = new InetSocketAddress[CAPACITY];
    private final long[] clientIds = new long[CAPACITY];
    /** Ring position + 1 of the key in each slot; 0: free. */
    private final int[] index = new int[SLOTS];
    /** Ring position of the oldest key. */
    private int oldest;
    private int count;

    /** Remembers that the handler of {@code clientId} from {@code client} ran. */
    void add(InetSocketAddress client, long clientId) {
        if (contains(client, clientId)) {
            return;
        }
        if (count == CAPACITY) {
            forget(oldest);
            oldest = (oldest + 1) % CAPACITY;
            count--;
        }
        int position = (oldest + count) % CAPACITY;
        clients[position] = client;
        clientIds[position] = clientId;
        count++;
        int mask = SLOTS - 1;
        int i = ServerRpcTable.slot(client, clientId, mask);
        while (index[i] != 0) {
            i = (i + 1) & mask;
        }
        index[i] = position + 1;
    }

    boolean contains(InetSocketAddress client, long clientId) {
        int mask = SLOTS - 1;
        for (int i = ServerRpcTable.slot(client, clientId, mask); index[i] != 0; i = (i + 1) & mask) {
            int position = index[i] - 1;
            if (clientIds[position] == clientId && clients[position].equals(client)) {
                return true;
            }
        }
        return false;
    }

    /** Takes the key at ring {@code position} out of the index (backward-shift deletion, {@link LinearProbing}). */
    private void forget(int position) {
        int mask = SLOTS - 1;
        int hole = ServerRpcTable.slot(clients[position], clientIds[position], mask);
        while (index[hole] != position + 1) {
            hole = (hole + 1) & mask;
        }
        for (int j = (hole + 1) & mask; index[j] != 0; j = (j + 1) & mask) {
            int moved = index[j] - 1;
            int home = ServerRpcTable.slot(clients[moved], clientIds[moved], mask);
            if (!LinearProbing.staysBehindHole(hole, j, home)) {
                index[hole] = index[j];
                hole = j;
            }
        }
        index[hole] = 0;
        clients[position] = null;
    }

    void clear() {
        Arrays.fill(clients, null);
        Arrays.fill(index, 0);
        oldest = 0;
        count = 0;
    }
}
