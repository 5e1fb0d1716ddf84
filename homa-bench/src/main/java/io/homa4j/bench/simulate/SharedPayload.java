package io.homa4j.bench.simulate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * The one buffer every simulated request is a slice of: contents do not matter to the protocol, only lengths, so
 * it is a {@link LengthOnlyBuffer} (no memory behind it, nothing copied out of it).
 */
final class SharedPayload {
    private SharedPayload() {
    }

    /** A buffer of {@code length} readable bytes (at least 1); the caller releases it. */
    static ByteBuf allocate(int length) {
        int size = Math.max(1, length);
        return new LengthOnlyBuffer(UnpooledByteBufAllocator.DEFAULT, size, size).writerIndex(size);
    }
}
