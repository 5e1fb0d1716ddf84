package io.homa4j.bench.simulate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** The one buffer every simulated request is a slice of: contents do not matter to the protocol, only lengths. */
final class SharedPayload {
    private SharedPayload() {
    }

    /** A buffer of {@code length} bytes (at least 1) with a fixed pattern; the caller releases it. */
    static ByteBuf allocate(int length) {
        int size = Math.max(1, length);
        ByteBuf buf = Unpooled.directBuffer(size, size);
        for (int i = 0; i < size; i += 8) {
            buf.setByte(i, i >>> 3);
        }
        buf.writerIndex(size);
        return buf;
    }
}
