package io.homa4j.bench.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttByLengthTest {
    private final RttByLength table = new RttByLength(new long[] {1, 1_000, 11_000}, new double[] {100, 200, 1_200});

    @Test
    void interpolatesBetweenAndExtrapolatesBeyondTheMeasuredLengths() {
        assertEquals(100, table.rttNanos(1));
        assertEquals(200, table.rttNanos(1_000));
        assertEquals(700, table.rttNanos(6_000), 1e-9);
        assertEquals(2_200, table.rttNanos(21_000), 1e-9); // the last segment's slope: 0.1 ns per byte
        assertEquals(150.0, table.rttNanos(500) , 0.1);
        assertThrows(IllegalArgumentException.class, () -> table.rttNanos(0));
    }

    @Test
    void aSinglePointHoldsForEveryLength() {
        RttByLength one = new RttByLength(new long[] {100}, new double[] {5_000});
        assertEquals(5_000, one.rttNanos(1));
        assertEquals(5_000, one.rttNanos(1_000_000));
    }

    @Test
    void refusesUnorderedLengthsAndNonPositiveRtts() {
        assertThrows(IllegalArgumentException.class, () -> new RttByLength(new long[] {5, 5}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> new RttByLength(new long[] {1, 2}, new double[] {1, 0}));
        assertThrows(IllegalArgumentException.class, () -> new RttByLength(new long[] {1}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> new RttByLength(new long[] {}, new double[] {}));
    }

    @Test
    void survivesTheFileRoundTripAndNamesBadLines(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("unloaded-homa.csv");
        table.write(file);
        RttByLength back = RttByLength.read(file);
        assertEquals(3, back.points());
        assertEquals(700, back.rttNanos(6_000), 1e-9);

        Files.writeString(file, RttByLength.HEADER + "\n1,0.1\nx,2\n");
        IOException e = assertThrows(IOException.class, () -> RttByLength.read(file));
        assertTrue(e.getMessage().contains(":3:"), e.getMessage());
        Files.writeString(file, "length,rtt\n");
        assertThrows(IOException.class, () -> RttByLength.read(file));
    }
}
