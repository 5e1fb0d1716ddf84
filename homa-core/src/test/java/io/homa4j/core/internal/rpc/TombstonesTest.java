package io.homa4j.core.internal.rpc;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TombstonesTest {
    private static InetSocketAddress client(int n) {
        return new InetSocketAddress("198.18.1." + (1 + n), 5_000);
    }

    @Test
    void remembersTheNewestAndForgetsTheOldestFirst() {
        Tombstones tombstones = new Tombstones();
        int extra = 1_000;
        // Three clients reuse the same ids: each (client, id) is its own RPC.
        for (int i = 0; i < Tombstones.CAPACITY + extra; i++) {
            tombstones.add(client(i % 3), 2L * (i / 3));
        }
        for (int i = 0; i < Tombstones.CAPACITY + extra; i++) {
            boolean remembered = tombstones.contains(client(i % 3), 2L * (i / 3));
            if (i < extra) {
                assertFalse(remembered, "forgotten: " + i);
            } else {
                assertTrue(remembered, "remembered: " + i);
            }
        }
        assertFalse(tombstones.contains(client(3), 2));
        assertFalse(tombstones.contains(client(0), 1));
    }

    @Test
    void addingAKeyAgainKeepsItsPlaceAndClearForgetsAll() {
        Tombstones tombstones = new Tombstones();
        tombstones.add(client(0), 2);
        for (int i = 1; i < Tombstones.CAPACITY; i++) {
            tombstones.add(client(1), 2L * i);
        }
        tombstones.add(client(0), 2); // already there: still the oldest
        tombstones.add(client(2), 2);
        assertFalse(tombstones.contains(client(0), 2));
        assertTrue(tombstones.contains(client(1), 2));
        assertTrue(tombstones.contains(client(2), 2));
        tombstones.clear();
        assertFalse(tombstones.contains(client(1), 2));
        tombstones.add(client(1), 2);
        assertTrue(tombstones.contains(client(1), 2));
    }
}
