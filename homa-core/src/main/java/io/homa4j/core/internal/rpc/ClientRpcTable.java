package io.homa4j.core.internal.rpc;

import java.util.List;

/**
 * The live client RPCs by id. Lookups (one per packet of a response, RESEND, BUSY...) go through an open-addressing
 * table of primitive ids, so a lookup boxes no {@code Long}; the timers walk the calls oldest first, along an
 * {@link AgeList} threaded through the calls themselves. Adding or removing a call allocates nothing once the table
 * has grown. Engine thread only.
 */
final class ClientRpcTable {
    private static final long SPREAD = 0x9E3779B97F4A7C15L; // 2^64 / golden ratio: ids are sequential

    /** The calls in the order the timers walk them. */
    private final AgeList<ClientRpc> byAge = new AgeList<>();
    private long[] ids = new long[16];
    /** Null marks a free slot. */
    private ClientRpc[] rpcs = new ClientRpc[16];
    private int size;

    int size() {
        return size;
    }

    /** The call with {@code id}, or null. */
    ClientRpc get(long id) {
        int mask = rpcs.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            ClientRpc rpc = rpcs[i];
            if (rpc == null) {
                return null;
            }
            if (ids[i] == id) {
                return rpc;
            }
        }
    }

    /** Adds {@code rpc} under its id, which must not be in the table. */
    void add(ClientRpc rpc) {
        if (2 * (size + 1) > rpcs.length) {
            grow();
        }
        insert(rpc.id(), rpc);
        size++;
        byAge.append(rpc);
    }

    /** Removes the call with {@code id} if present. */
    void remove(long id) {
        int mask = rpcs.length - 1;
        int i = slot(id, mask);
        while (true) {
            if (rpcs[i] == null) {
                return;
            }
            if (ids[i] == id) {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion (LinearProbing): later entries of the probe run move up into the hole.
        byAge.remove(rpcs[i]);
        int hole = i;
        for (int j = (hole + 1) & mask; rpcs[j] != null; j = (j + 1) & mask) {
            int home = slot(ids[j], mask);
            if (!LinearProbing.staysBehindHole(hole, j, home)) {
                ids[hole] = ids[j];
                rpcs[hole] = rpcs[j];
                hole = j;
            }
        }
        rpcs[hole] = null;
        size--;
    }

    /** A copy of the live calls, oldest first, safe to walk while calls are freed. */
    List<ClientRpc> snapshot() {
        return byAge.snapshot();
    }

    private static int slot(long id, int mask) {
        return (int) ((id * SPREAD) >>> 32) & mask;
    }

    private void insert(long id, ClientRpc rpc) {
        int mask = rpcs.length - 1;
        int i = slot(id, mask);
        while (rpcs[i] != null) {
            i = (i + 1) & mask;
        }
        ids[i] = id;
        rpcs[i] = rpc;
    }

    private void grow() {
        long[] oldIds = ids;
        ClientRpc[] oldRpcs = rpcs;
        ids = new long[oldIds.length * 2];
        rpcs = new ClientRpc[oldRpcs.length * 2];
        for (int i = 0; i < oldRpcs.length; i++) {
            if (oldRpcs[i] != null) {
                insert(oldIds[i], oldRpcs[i]);
            }
        }
    }
}
