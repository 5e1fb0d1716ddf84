package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class PayloadsTest {

    @Test
    void checksumOfTheGeneratorMatchesTheBufferForAwkwardLengths() {
        for (int length : new int[] {0, 1, 7, 8, 9, 65_535, 65_536, 65_537, 200_003}) {
            ByteBuf buf = Payloads.random(length, length);
            try {
                assertEquals(length, buf.readableBytes());
                assertEquals(Payloads.crc32c(buf), Payloads.randomCrc32c(length, length), "length " + length);
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void seedsGiveDifferentBytes() {
        assertNotEquals(Payloads.randomCrc32c(1_000, 1), Payloads.randomCrc32c(1_000, 2));
        assertEquals(Payloads.randomCrc32c(1_000, 1), Payloads.randomCrc32c(1_000, 1));
    }
}
