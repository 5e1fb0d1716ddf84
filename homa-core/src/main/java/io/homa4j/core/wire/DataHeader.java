package io.homa4j.core.wire;

import io.homa4j.core.Unstable;

/**
 * Flyweight over a DATA packet: one contiguous slice of a request or response, followed by its payload.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id)       |   0..11
 * +---------------------------------------------------------------+
 * |                   message length (bytes)                      |  12
 * +---------------------------------------------------------------+
 * |                 offset of this segment in the message         |  16
 * +---------------------------------------------------------------+
 * |    incoming: bytes the sender may send without more grants    |  20
 * +-------------------------------+-------------------------------+
 * |        segment length         |        cutoffs version        |  24
 * +---------------+---------------+-------------------------------+
 * |     flags     |  sent level   |           reserved            |  28
 * +---------------+---------------+-------------------------------+
 * |                                                               |  32
 * +     piggy-backed ACK: a finished client RPC id, 0 for none    +
 * |                                                               |  36
 * +---------------------------------------------------------------+
 * |                 payload (segment length bytes)             ...   40
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Flags: {@link #FLAG_RETRANSMIT} (sent again because of a RESEND), {@link #FLAG_ERROR} (the message is an
 * error response: a one-byte error code then a UTF-8 description). Sent level: the priority level the sender
 * put the packet on the wire at, plus one (0: not said, as by a sender that predates the field); a receiver learns
 * from it which levels of its switch port had drained (see {@code DownlinkDrain}). The packet is exactly 40 +
 * segment length bytes long; anything else is malformed.
 */
@Unstable("packet flyweights for tests and tools")
public final class DataHeader extends CommonHeader {
    public static final int MESSAGE_LENGTH_OFFSET = 12;
    public static final int OFFSET_OFFSET = 16;
    public static final int INCOMING_OFFSET = 20;
    public static final int SEGMENT_LENGTH_OFFSET = 24;
    public static final int CUTOFFS_VERSION_OFFSET = 26;
    public static final int FLAGS_OFFSET = 28;
    public static final int SENT_LEVEL_OFFSET = 29;
    public static final int ACK_ID_OFFSET = 32;
    public static final int LENGTH = 40;

    public static final int FLAG_RETRANSMIT = 0x01;
    public static final int FLAG_ERROR = 0x02;
    static final int KNOWN_FLAGS = FLAG_RETRANSMIT | FLAG_ERROR;

    /**
     * Message bytes one DATA packet carries in a UDP payload of {@code maxUdpPayload} bytes (the segment length
     * field is 16 bits).
     */
    public static int maxPayload(int maxUdpPayload) {
        return Math.min(0xFFFF, maxUdpPayload - LENGTH);
    }

    @Override
    public DataHeader wrap(io.netty.buffer.ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** Message length; a signed read so a value above 2^31 shows as negative and is rejected. */
    public int messageLength() {
        return buffer.getInt(base + MESSAGE_LENGTH_OFFSET);
    }

    public DataHeader messageLength(int v) {
        buffer.setInt(base + MESSAGE_LENGTH_OFFSET, v);
        return this;
    }

    public int offset() {
        return buffer.getInt(base + OFFSET_OFFSET);
    }

    public DataHeader offset(int v) {
        buffer.setInt(base + OFFSET_OFFSET, v);
        return this;
    }

    public int incoming() {
        return buffer.getInt(base + INCOMING_OFFSET);
    }

    public DataHeader incoming(int v) {
        buffer.setInt(base + INCOMING_OFFSET, v);
        return this;
    }

    public int segmentLength() {
        return buffer.getUnsignedShort(base + SEGMENT_LENGTH_OFFSET);
    }

    public DataHeader segmentLength(int v) {
        buffer.setShort(base + SEGMENT_LENGTH_OFFSET, v);
        return this;
    }

    public int cutoffsVersion() {
        return buffer.getUnsignedShort(base + CUTOFFS_VERSION_OFFSET);
    }

    public DataHeader cutoffsVersion(int v) {
        buffer.setShort(base + CUTOFFS_VERSION_OFFSET, v);
        return this;
    }

    public int flags() {
        return buffer.getUnsignedByte(base + FLAGS_OFFSET);
    }

    public DataHeader flags(int v) {
        buffer.setByte(base + FLAGS_OFFSET, v);
        buffer.setByte(base + FLAGS_OFFSET + 1, 0);
        buffer.setShort(base + FLAGS_OFFSET + 2, 0);
        return this;
    }

    /** The priority level the packet was sent at, or -1 when the sender did not say (see the class comment). */
    public int sentLevel() {
        return buffer.getUnsignedByte(base + SENT_LEVEL_OFFSET) - 1;
    }

    /** Sets {@link #sentLevel()}; -1 for not said. Call after {@link #flags(int)}, which clears it. */
    public DataHeader sentLevel(int level) {
        buffer.setByte(base + SENT_LEVEL_OFFSET, level + 1);
        return this;
    }

    public boolean retransmit() {
        return (flags() & FLAG_RETRANSMIT) != 0;
    }

    public boolean error() {
        return (flags() & FLAG_ERROR) != 0;
    }

    public long ackId() {
        return buffer.getLong(base + ACK_ID_OFFSET);
    }

    public DataHeader ackId(long v) {
        buffer.setLong(base + ACK_ID_OFFSET, v);
        return this;
    }

    /** Index in the buffer of the first payload byte. */
    public int payloadIndex() {
        return base + LENGTH;
    }
}
