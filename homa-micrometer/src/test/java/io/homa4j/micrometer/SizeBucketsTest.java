package io.homa4j.micrometer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SizeBucketsTest {

    @Test
    void eachBoundBelongsToItsOwnBucketAndLargerSizesToTheLast() {
        SizeBuckets b = SizeBuckets.of(100, 1_000);
        assertEquals(3, b.count());
        assertEquals(0, b.indexOf(0));
        assertEquals(0, b.indexOf(100));
        assertEquals(1, b.indexOf(101));
        assertEquals(1, b.indexOf(1_000));
        assertEquals(2, b.indexOf(1_001));
        assertEquals("0-100", b.label(0));
        assertEquals("101-1000", b.label(1));
        assertEquals("1001+", b.label(2));
    }

    @Test
    void noBoundsIsOneBucket() {
        SizeBuckets b = SizeBuckets.of();
        assertEquals(1, b.count());
        assertEquals(0, b.indexOf(1 << 20));
        assertEquals("0+", b.label(0));
    }

    @Test
    void boundsMustAscend() {
        assertThrows(IllegalArgumentException.class, () -> SizeBuckets.of(10, 10));
        assertThrows(IllegalArgumentException.class, () -> SizeBuckets.of(10, 5));
        assertThrows(IllegalArgumentException.class, () -> SizeBuckets.of(-1));
    }
}
