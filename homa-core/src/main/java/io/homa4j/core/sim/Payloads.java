package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/** Deterministic message payloads and their checksums, for byte-exact round-trip checks. */
public final class Payloads {
    private Payloads() {
    }

    /**
     * A buffer of {@code length} pseudo-random bytes determined by {@code seed}, from the default (leak-tracked)
     * allocator. The caller owns it.
     */
    public static ByteBuf random(int length, long seed) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(length, length);
        SplittableRandom random = new SplittableRandom(seed);
        int longs = length >>> 3;
        for (int i = 0; i < longs; i++) {
            buf.writeLong(random.nextLong());
        }
        for (int i = longs << 3; i < length; i++) {
            buf.writeByte(random.nextInt());
        }
        return buf;
    }

    /** CRC-32C of the readable bytes of {@code buf}; does not move its indexes. */
    public static int crc32c(ByteBuf buf) {
        CRC32C crc = new CRC32C();
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + buf.readerIndex(), buf.readableBytes());
        } else {
            for (ByteBuffer part : buf.nioBuffers()) {
                crc.update(part);
            }
        }
        return (int) crc.getValue();
    }

    /** CRC-32C of what {@link #random(int, long)} returns for the same arguments, without keeping the bytes. */
    public static int randomCrc32c(int length, long seed) {
        ByteBuf buf = random(length, seed);
        try {
            return crc32c(buf);
        } finally {
            buf.release();
        }
    }
}
