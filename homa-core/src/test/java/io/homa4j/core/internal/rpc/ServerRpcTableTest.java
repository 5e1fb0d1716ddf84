package io.homa4j.core.internal.rpc;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerRpcTableTest {
    private record Key(InetSocketAddress client, long clientId) {
    }

    private static InetSocketAddress client(int n) {
        return new InetSocketAddress("198.18.0." + (1 + n % 200), 40_000 + n / 200);
    }

    /**
     * Random adds and removes against a map in insertion order: the same ids from several clients are different
     * RPCs, every lookup agrees (with addresses equal but not identical to the stored ones), and the walk is oldest
     * first.
     */
    @Test
    void agreesWithAMapInLookupsAndWalksOldestFirst() {
        SplittableRandom random = new SplittableRandom(5);
        ServerRpcTable table = new ServerRpcTable();
        Map<Key, ServerRpc> reference = new LinkedHashMap<>();
        List<Key> live = new ArrayList<>();
        long handle = 1;
        for (int step = 0; step < 100_000; step++) {
            if (live.isEmpty() || random.nextInt(100) < 55 && live.size() < 3_000) {
                Key key = new Key(client(random.nextInt(400)), 2L * random.nextInt(5_000));
                if (reference.containsKey(key)) {
                    continue;
                }
                ServerRpc rpc = new ServerRpc(handle++, key.client(), key.clientId(), null);
                table.add(rpc);
                reference.put(key, rpc);
                live.add(key);
            } else {
                Key key = live.remove(random.nextInt(live.size()));
                ServerRpc rpc = reference.remove(key);
                assertTrue(table.holds(rpc));
                table.remove(rpc);
                assertFalse(table.holds(rpc));
                assertNull(table.get(key.client(), key.clientId()));
            }
            if (step % 991 == 0) {
                assertEquals(reference.size(), table.size());
                for (Key key : live) {
                    InetSocketAddress equalAddress = new InetSocketAddress(key.client().getAddress(),
                            key.client().getPort());
                    assertSame(reference.get(key), table.get(equalAddress, key.clientId()));
                }
                assertEquals(new ArrayList<>(reference.values()), table.snapshot());
            }
        }
    }

    @Test
    void removingAnRpcNotInTheTableChangesNothing() {
        ServerRpcTable table = new ServerRpcTable();
        ServerRpc kept = new ServerRpc(1, client(1), 42, null);
        ServerRpc sameKeyOtherRpc = new ServerRpc(2, client(1), 42, null);
        table.add(kept);
        assertSame(kept, table.onlyRpc());
        table.remove(sameKeyOtherRpc);
        assertEquals(1, table.size());
        assertSame(kept, table.get(client(1), 42));
        assertFalse(table.holds(sameKeyOtherRpc));
        table.add(new ServerRpc(3, client(2), 42, null));
        assertNull(table.onlyRpc());
        table.remove(kept);
        table.remove(kept);
        assertEquals(1, table.size());
        assertNull(table.get(client(1), 42));
    }
}
