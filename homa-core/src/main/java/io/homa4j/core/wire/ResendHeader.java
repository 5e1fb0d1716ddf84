package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a RESEND packet: the receiver of a message asks its sender to transmit
 * {@code [offset, offset + length)} again, at {@code priority}. A RESEND also grants up to its end.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id)       |   0..11
 * +---------------------------------------------------------------+
 * |                      offset (bytes)                           |  12
 * +---------------------------------------------------------------+
 * |                      length (bytes)                           |  16
 * +---------------+-----------------------------------------------+
 * |   priority    |                   reserved                    |  20
 * +---------------+-----------------------------------------------+
 * </pre>
 */
@Unstable("packet flyweights for tests and tools")
public final class ResendHeader extends CommonHeader {
    public static final int OFFSET_OFFSET = 12;
    public static final int LENGTH_OFFSET = 16;
    public static final int PRIORITY_OFFSET = 20;
    public static final int LENGTH = 24;

    @Override
    public ResendHeader wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int offset() {
        return buffer.getInt(base + OFFSET_OFFSET);
    }

    public ResendHeader offset(int v) {
        buffer.setInt(base + OFFSET_OFFSET, v);
        return this;
    }

    public int length() {
        return buffer.getInt(base + LENGTH_OFFSET);
    }

    public ResendHeader length(int v) {
        buffer.setInt(base + LENGTH_OFFSET, v);
        return this;
    }

    public int priority() {
        return buffer.getUnsignedByte(base + PRIORITY_OFFSET);
    }

    public ResendHeader priority(int v) {
        buffer.setByte(base + PRIORITY_OFFSET, v);
        buffer.setByte(base + PRIORITY_OFFSET + 1, 0);
        buffer.setShort(base + PRIORITY_OFFSET + 2, 0);
        return this;
    }
}
