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

    private static final int CHUNK = 64 * 1024; // a multiple of 8

    /**
     * A buffer of {@code length} pseudo-random bytes determined by {@code seed}, from the default (leak-tracked)
     * allocator. The caller owns it. Written in large chunks: with paranoid leak detection every write records a
     * stack trace, so per-long writes would dominate a 64 MiB test.
     */
    public static ByteBuf random(int length, long seed) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(length, length);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] chunk = new byte[Math.min(CHUNK, length)];
        for (int done = 0; done < length; ) {
            int n = Math.min(chunk.length, length - done);
            fill(chunk, n, random);
            buf.writeBytes(chunk, 0, n);
            done += n;
        }
        return buf;
    }

    /** CRC-32C of what {@link #random(int, long)} returns for the same arguments, without a buffer. */
    public static int randomCrc32c(int length, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        CRC32C crc = new CRC32C();
        byte[] chunk = new byte[Math.min(CHUNK, length)];
        for (int done = 0; done < length; ) {
            int n = Math.min(chunk.length, length - done);
            fill(chunk, n, random);
            crc.update(chunk, 0, n);
            done += n;
        }
        return (int) crc.getValue();
    }

    /** Big-endian longs from {@code random}; a last partial long takes its leading bytes. */
    private static void fill(byte[] chunk, int n, SplittableRandom random) {
        for (int i = 0; i < n; i += 8) {
            long v = random.nextLong();
            for (int b = 0; b < 8 && i + b < n; b++) {
                chunk[i + b] = (byte) (v >>> (56 - 8 * b));
            }
        }
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
}
