package io.homa4j.core.internal.order;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FirstCachingSetTest {
    @Test
    void firstFollowsAddsAndRemovesLikeATreeSet() {
        FirstCachingSet<Integer> set = new FirstCachingSet<>(Comparator.naturalOrder());
        TreeSet<Integer> reference = new TreeSet<>();
        SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 20_000; step++) {
            Integer value = random.nextInt(200);
            if (random.nextBoolean()) {
                assertEquals(reference.add(value), set.add(value));
            } else {
                assertEquals(reference.remove(value), set.remove(value));
            }
            assertEquals(reference.size(), set.size());
            if (!reference.isEmpty()) {
                assertEquals(reference.first(), set.first(), "after step " + step);
            }
        }
    }

    @Test
    void iteratesInOrderAndCannotRemoveThroughTheIterator() {
        FirstCachingSet<Integer> set = new FirstCachingSet<>(Comparator.reverseOrder());
        for (int i = 0; i < 5; i++) {
            set.add(i);
        }
        List<Integer> seen = new ArrayList<>();
        set.forEach(seen::add);
        assertEquals(List.of(4, 3, 2, 1, 0), seen);
        Iterator<Integer> it = set.iterator();
        it.next();
        assertThrows(UnsupportedOperationException.class, it::remove);
        assertEquals(4, set.first());
        assertFalse(set.isEmpty());
        assertTrue(set.remove(4));
        assertEquals(3, set.first());
    }
}
