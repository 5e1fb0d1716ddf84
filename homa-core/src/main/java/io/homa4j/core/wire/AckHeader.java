package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over an ACK packet: a client tells a server that these RPCs (client ids) are finished, so the
 * server may free their responses. The RPC id of the common header is the id a NEED_ACK asked about, or 0.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id)       |   0..11
 * +-------------------------------+-------------------------------+
 * |            count              |           reserved            |  12
 * +-------------------------------+-------------------------------+
 * |                 finished client RPC id 0 (64 bits)            |  16
 * +---------------------------------------------------------------+
 * |                    ... count ids in all                    ...
 * +---------------------------------------------------------------+
 * </pre>
 *
 * The packet is exactly 16 + 8 x count bytes long.
 */
@Unstable("packet flyweights for tests and tools")
public final class AckHeader extends CommonHeader {
    public static final int COUNT_OFFSET = 12;
    public static final int IDS_OFFSET = 16;
    public static final int LENGTH = 16;

    @Override
    public AckHeader wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public int count() {
        return buffer.getUnsignedShort(base + COUNT_OFFSET);
    }

    public AckHeader count(int v) {
        buffer.setShort(base + COUNT_OFFSET, v);
        buffer.setShort(base + COUNT_OFFSET + 2, 0);
        return this;
    }

    public long ackedId(int index) {
        return buffer.getLong(base + IDS_OFFSET + 8 * index);
    }

    public AckHeader ackedId(int index, long id) {
        buffer.setLong(base + IDS_OFFSET + 8 * index, id);
        return this;
    }

    /** Packet length for {@code count} ids. */
    public static int lengthFor(int count) {
        return IDS_OFFSET + 8 * count;
    }
}
