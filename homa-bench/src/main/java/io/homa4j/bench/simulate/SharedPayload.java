package io.homa4j.bench.simulate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * The one buffer every simulated request is a slice of: contents do not matter to the protocol, only lengths, so
 * it is a {@link LengthOnlyBuffer} (no memory behind it, nothing copied out of it).
 */
final class SharedPayload {
    private SharedPayload() {
    }

    /** A buffer of {@code length} readable bytes (at least 1), without memory; the caller releases it. */
    static ByteBuf allocate(int length) {
        return allocate(length, false);
    }

    /** @param real a direct buffer holding a fixed pattern rather than a {@link LengthOnlyBuffer} */
    static ByteBuf allocate(int length, boolean real) {
        int size = Math.max(1, length);
        if (!real) {
            return new LengthOnlyBuffer(UnpooledByteBufAllocator.DEFAULT, size, size).writerIndex(size);
        }
        ByteBuf buf = Unpooled.directBuffer(size, size);
        for (int i = 0; i < size; i += 8) {
            buf.setByte(i, i >>> 3);
        }
        return buf.writerIndex(size);
    }
}
