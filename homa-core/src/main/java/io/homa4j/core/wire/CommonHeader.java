package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over the header every Homa packet starts with. All fields are big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------------------------------+---------------+---------------+
 * |         magic (0x484D)        |    version    |     type      |   0
 * +-------------------------------+---------------+---------------+
 * |                                                               |   4
 * +                  RPC id, as the sender sees it                +
 * |                                                               |   8
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The RPC id is the sender's: a client puts its (even) id, a server puts the client's id xor 1 (odd). The
 * receiver flips the low bit to find its own id for the RPC. Not thread-safe; reusable with {@link #wrap}.
 */
@Unstable("packet flyweights for tests and tools")
public class CommonHeader {
    /** "HM": lets stray UDP traffic be told apart from Homa packets and dropped. */
    public static final int MAGIC = 0x484D;
    /** The only wire version this code speaks. */
    public static final int VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 2;
    public static final int TYPE_OFFSET = 3;
    public static final int RPC_ID_OFFSET = 4;
    public static final int LENGTH = 12;

    protected ByteBuf buffer;
    protected int base;

    /** Points this flyweight at the packet starting at {@code offset} of {@code buffer}; no bounds check. */
    public CommonHeader wrap(ByteBuf buffer, int offset) {
        this.buffer = buffer;
        this.base = offset;
        return this;
    }

    public ByteBuf buffer() {
        return buffer;
    }

    public int magic() {
        return buffer.getUnsignedShort(base + MAGIC_OFFSET);
    }

    public int version() {
        return buffer.getUnsignedByte(base + VERSION_OFFSET);
    }

    public int typeCode() {
        return buffer.getUnsignedByte(base + TYPE_OFFSET);
    }

    public PacketType type() {
        return PacketType.fromCode(typeCode());
    }

    public long rpcId() {
        return buffer.getLong(base + RPC_ID_OFFSET);
    }

    /** Writes magic, version, type and RPC id. */
    public CommonHeader writeCommon(PacketType type, long rpcId) {
        buffer.setShort(base + MAGIC_OFFSET, MAGIC);
        buffer.setByte(base + VERSION_OFFSET, VERSION);
        buffer.setByte(base + TYPE_OFFSET, type.code());
        buffer.setLong(base + RPC_ID_OFFSET, rpcId);
        return this;
    }
}
