package io.homa4j.core.internal.order;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexedHeapTest {
    /** A queued thing with a key that may change and a unique id; it sits in two heaps at once. */
    static final class Item {
        final int id;
        int key;
        int byKeyPosition = IndexedHeap.ABSENT;
        int byIdPosition = IndexedHeap.ABSENT;

        Item(int id, int key) {
            this.id = id;
            this.key = key;
        }

        @Override
        public String toString() {
            return "Item{" + id + ", key " + key + '}';
        }
    }

    static final Comparator<Item> BY_KEY = (a, b) -> a.key != b.key ? Integer.compare(a.key, b.key)
            : Integer.compare(a.id, b.id);
    static final Comparator<Item> BY_ID = Comparator.comparingInt(item -> item.id);

    static final IndexedHeap.Position<Item> KEY_POSITION =
            IndexedHeap.Position.of(item -> item.byKeyPosition, (item, index) -> item.byKeyPosition = index);

    static final IndexedHeap.Position<Item> ID_POSITION =
            IndexedHeap.Position.of(item -> item.byIdPosition, (item, index) -> item.byIdPosition = index);

    @Test
    void firstMatchesASortedSetThroughAddsRemovesAndKeyChanges() {
        IndexedHeap<Item> byKey = new IndexedHeap<>(BY_KEY, KEY_POSITION);
        IndexedHeap<Item> byId = new IndexedHeap<>(BY_ID, ID_POSITION);
        TreeSet<Item> keyReference = new TreeSet<>(BY_KEY);
        TreeSet<Item> idReference = new TreeSet<>(BY_ID);
        List<Item> items = new ArrayList<>();
        for (int id = 0; id < 300; id++) {
            items.add(new Item(id, 0));
        }
        SplittableRandom random = new SplittableRandom(11);
        for (int step = 0; step < 50_000; step++) {
            Item item = items.get(random.nextInt(items.size()));
            int action = random.nextInt(4);
            if (action == 0 && !byKey.contains(item)) {
                item.key = random.nextInt(1_000);
                byKey.add(item);
                byId.add(item);
                keyReference.add(item);
                idReference.add(item);
            } else if (action == 1) {
                assertEquals(keyReference.remove(item), byKey.remove(item));
                assertEquals(idReference.remove(item), byId.remove(item));
            } else if (action == 2 && byKey.contains(item)) {
                // the key moves either way, in place, as the engine's send queue changes a message's unsent bytes
                keyReference.remove(item);
                item.key = random.nextInt(1_000);
                keyReference.add(item);
                byKey.reorder(item);
            } else if (action == 3) {
                Item polled = byKey.pollFirst();
                assertSame(keyReference.pollFirst(), polled, "after step " + step);
                if (polled != null) {
                    assertTrue(byId.remove(polled));
                    idReference.remove(polled);
                }
            }
            assertEquals(keyReference.size(), byKey.size());
            assertEquals(idReference.size(), byId.size());
            assertSame(keyReference.isEmpty() ? null : keyReference.first(), byKey.first(), "after step " + step);
            assertSame(idReference.isEmpty() ? null : idReference.first(), byId.first(), "after step " + step);
        }
    }

    @Test
    void drainsInOrder() {
        IndexedHeap<Item> heap = new IndexedHeap<>(BY_KEY, KEY_POSITION);
        SplittableRandom random = new SplittableRandom(3);
        for (int id = 0; id < 1_000; id++) {
            heap.add(new Item(id, random.nextInt(50)));
        }
        Item previous = heap.pollFirst();
        for (Item next = heap.pollFirst(); next != null; next = heap.pollFirst()) {
            assertTrue(BY_KEY.compare(previous, next) < 0, previous + " before " + next);
            assertEquals(IndexedHeap.ABSENT, previous.byKeyPosition);
            previous = next;
        }
        assertTrue(heap.isEmpty());
    }

    @Test
    void anElementIsQueuedOnceAndRemovedOnce() {
        IndexedHeap<Item> heap = new IndexedHeap<>(BY_KEY, KEY_POSITION);
        Item item = new Item(1, 5);
        heap.add(item);
        assertThrows(IllegalStateException.class, () -> heap.add(item));
        assertEquals(1, heap.size());
        assertTrue(heap.remove(item));
        assertFalse(heap.remove(item));
        assertFalse(heap.contains(item));
        heap.reorder(item); // not queued: nothing to do
        assertTrue(heap.isEmpty());
        assertNull(heap.first());
    }

    @Test
    void clearMarksEveryElementAbsent() {
        IndexedHeap<Item> heap = new IndexedHeap<>(BY_KEY, KEY_POSITION);
        List<Item> items = new ArrayList<>();
        for (int id = 0; id < 40; id++) {
            Item item = new Item(id, 40 - id);
            items.add(item);
            heap.add(item);
        }
        heap.clear();
        assertTrue(heap.isEmpty());
        for (Item item : items) {
            assertFalse(heap.contains(item));
        }
        heap.add(items.get(7));
        assertSame(items.get(7), heap.first());
    }
}
