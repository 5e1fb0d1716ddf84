package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a GRANT packet: the receiver lets the sender transmit the message up to {@code offset}
 * (exclusive) and tells it which priority level to use for those scheduled bytes.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id)       |   0..11
 * +---------------------------------------------------------------+
 * |                 granted offset (bytes, exclusive)             |  12
 * +---------------+-----------------------------------------------+
 * |   priority    |                   reserved                    |  16
 * +---------------+-----------------------------------------------+
 * </pre>
 */
@Unstable("packet flyweights for tests and tools")
public final class GrantHeader extends CommonHeader {
    public static final int OFFSET_OFFSET = 12;
    public static final int PRIORITY_OFFSET = 16;
    public static final int LENGTH = 20;

    @Override
    public GrantHeader wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int offset() {
        return buffer.getInt(base + OFFSET_OFFSET);
    }

    public GrantHeader offset(int v) {
        buffer.setInt(base + OFFSET_OFFSET, v);
        return this;
    }

    public int priority() {
        return buffer.getUnsignedByte(base + PRIORITY_OFFSET);
    }

    public GrantHeader priority(int v) {
        buffer.setByte(base + PRIORITY_OFFSET, v);
        buffer.setByte(base + PRIORITY_OFFSET + 1, 0);
        buffer.setShort(base + PRIORITY_OFFSET + 2, 0);
        return this;
    }
}
