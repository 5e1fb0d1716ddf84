package io.homa4j.core.internal.rpc;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class ClientRpcTableTest {

    /**
     * Random adds and removes against a map in insertion order: every lookup agrees, and the timers walk the calls
     * oldest first (the order their RESENDs and failures go out in).
     */
    @Test
    void agreesWithAMapInLookupsAndWalksOldestFirst() {
        SplittableRandom random = new SplittableRandom(13);
        ClientRpcTable table = new ClientRpcTable();
        Map<Long, ClientRpc> reference = new LinkedHashMap<>();
        List<Long> live = new ArrayList<>();
        long nextId = 2; // client ids as RpcIds makes them: even, rising
        for (int step = 0; step < 200_000; step++) {
            if (live.isEmpty() || random.nextInt(100) < 55 && live.size() < 5_000) {
                // mostly sequential, now and then a far jump, so probe runs both form and wrap around
                nextId += random.nextInt(10) == 0 ? 2L * random.nextInt(1 << 20) : 2;
                ClientRpc rpc = new ClientRpc(nextId, null, Long.MAX_VALUE);
                table.add(rpc);
                reference.put(nextId, rpc);
                live.add(nextId);
            } else {
                long id = live.remove(random.nextInt(live.size()));
                table.remove(id);
                reference.remove(id);
                assertNull(table.get(id));
            }
            if (step % 997 == 0) {
                assertEquals(reference.size(), table.size());
                for (long id : live) {
                    assertSame(reference.get(id), table.get(id));
                }
                assertEquals(new ArrayList<>(reference.values()), table.snapshot());
                assertNull(table.get(nextId + 2));
            }
        }
    }

    @Test
    void removingAnAbsentIdChangesNothing() {
        ClientRpcTable table = new ClientRpcTable();
        ClientRpc rpc = new ClientRpc(42, null, Long.MAX_VALUE);
        table.add(rpc);
        table.remove(44);
        assertEquals(1, table.size());
        assertSame(rpc, table.get(42));
        table.remove(42);
        assertEquals(0, table.size());
        assertNull(table.get(42));
    }
}
