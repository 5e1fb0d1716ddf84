package io.homa4j.core.internal.incoming;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReceivedRangesTest {

    @Test
    void countsOnlyNewBytes() {
        ReceivedRanges r = new ReceivedRanges(16);
        assertEquals(10, r.add(10, 20));
        assertEquals(0, r.add(12, 18));
        assertEquals(5, r.add(5, 15));
        assertEquals(10, r.add(0, 25)); // 0..5 and 20..25
        assertEquals(25, r.contiguousPrefix());
        assertEquals(1, r.intervals());
    }

    @Test
    void gapsInOrder() {
        ReceivedRanges r = new ReceivedRanges(16);
        r.add(10, 20);
        r.add(30, 40);
        List<int[]> gaps = new ArrayList<>();
        r.forEachGap(50, 8, (s, e) -> gaps.add(new int[] {s, e}));
        assertEquals(3, gaps.size());
        assertEquals(0, gaps.get(0)[0]);
        assertEquals(10, gaps.get(0)[1]);
        assertEquals(20, gaps.get(1)[0]);
        assertEquals(30, gaps.get(1)[1]);
        assertEquals(40, gaps.get(2)[0]);
        assertEquals(50, gaps.get(2)[1]);
    }

    @Test
    void refusesBeyondMaxRanges() {
        ReceivedRanges r = new ReceivedRanges(2);
        r.add(0, 1);
        r.add(2, 3);
        assertEquals(-1, r.add(4, 5));
        assertEquals(1, r.add(1, 2)); // merging is always possible
    }

    @Test
    void matchesABitSetModel() {
        Random random = new Random(12345);
        for (int round = 0; round < 200; round++) {
            ReceivedRanges r = new ReceivedRanges(10_000);
            BitSet model = new BitSet();
            for (int i = 0; i < 100; i++) {
                int start = random.nextInt(1000);
                int end = start + random.nextInt(60);
                int before = model.cardinality();
                model.set(start, end);
                assertEquals(model.cardinality() - before, r.add(start, end));
            }
            assertEquals(model.nextClearBit(0), r.contiguousPrefix());
        }
    }
}
