package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;

/**
 * Structural validation of a received packet: after {@link #check} returns null, every field of the packet's
 * flyweight can be read without going out of bounds and is within its documented range. Semantic checks (does
 * the RPC exist, does the length match earlier packets) are the engine's.
 *
 * <p>Never throws for any buffer content. Stateless and thread-safe.
 *
 * <p>The verdict is a {@link DropReason}, the one arrow from {@code wire} up to {@code metrics} (which counts by
 * {@link PacketType}, so the packages refer to each other): both are dependency-free enums, the public vocabulary
 * of the counters, so no class depends on itself through them, and a wire-local verdict type would need a second
 * list of the same reasons and a mapping between them.
 */
@Unstable("packet flyweights for tests and tools")
public final class PacketDecoder {
    /** Longest fixed header of any type: the most bytes {@link #check} reads. */
    public static final int MAX_FIXED_HEADER = CutoffsHeader.LENGTH;

    private PacketDecoder() {
    }

    /**
     * @param packet the packet's readable bytes
     * @return null when structurally valid, else the reason to drop it
     */
    public static DropReason check(ByteBuf packet) {
        return check(packet, packet.readerIndex(), packet.readableBytes());
    }

    /**
     * Checks a packet of {@code length} bytes whose first bytes are at {@code start} of {@code header}. Only
     * the fixed header of the packet's type is read (at most {@link #MAX_FIXED_HEADER} bytes), so
     * {@code header} may be a copy of just that prefix.
     */
    public static DropReason check(ByteBuf header, int start, int length) {
        ByteBuf packet = header;
        if (length < CommonHeader.LENGTH) {
            return length >= 2 && packet.getUnsignedShort(start) != CommonHeader.MAGIC
                    ? DropReason.BAD_MAGIC : DropReason.TRUNCATED;
        }
        if (packet.getUnsignedShort(start + CommonHeader.MAGIC_OFFSET) != CommonHeader.MAGIC) {
            return DropReason.BAD_MAGIC;
        }
        if (packet.getUnsignedByte(start + CommonHeader.VERSION_OFFSET) != CommonHeader.VERSION) {
            return DropReason.BAD_VERSION;
        }
        PacketType type = PacketType.fromCode(packet.getUnsignedByte(start + CommonHeader.TYPE_OFFSET));
        if (type == null) {
            return DropReason.UNKNOWN_TYPE;
        }
        if (length < type.minLength()) {
            return DropReason.TRUNCATED;
        }
        switch (type) {
            case DATA:
                return checkData(packet, start, length);
            case GRANT:
                return checkGrant(packet, start, length);
            case RESEND:
                return checkResend(packet, start, length);
            case CUTOFFS:
                return checkCutoffs(packet, start, length);
            case ACK:
                return checkAck(packet, start, length);
            default: // RPC_UNKNOWN, BUSY, NEED_ACK: fixed size
                return length == type.minLength() ? null : DropReason.MALFORMED;
        }
    }

    /**
     * The length the packet starting at {@code start} declares for itself (every type is self-delimiting: DATA by
     * its segment length, ACK by its id count, the others by their fixed size), or -1 when the bytes there do not
     * start a Homa packet or hold too little of it to tell. Used to cut a coalesced receive (UDP GRO) back into the
     * datagrams it was made of. Reads at most {@link #MAX_FIXED_HEADER} bytes, never beyond {@code available}.
     */
    public static int framedLength(ByteBuf buffer, int start, int available) {
        if (available < CommonHeader.LENGTH
                || buffer.getUnsignedShort(start + CommonHeader.MAGIC_OFFSET) != CommonHeader.MAGIC) {
            return -1;
        }
        PacketType type = PacketType.fromCode(buffer.getUnsignedByte(start + CommonHeader.TYPE_OFFSET));
        if (type == null || available < type.minLength()) {
            return -1;
        }
        switch (type) {
            case DATA:
                return DataHeader.LENGTH + buffer.getUnsignedShort(start + DataHeader.SEGMENT_LENGTH_OFFSET);
            case ACK:
                return AckHeader.lengthFor(buffer.getUnsignedShort(start + AckHeader.COUNT_OFFSET));
            default:
                return type.minLength();
        }
    }

    private static DropReason checkData(ByteBuf p, int start, int length) {
        int messageLength = p.getInt(start + DataHeader.MESSAGE_LENGTH_OFFSET);
        int offset = p.getInt(start + DataHeader.OFFSET_OFFSET);
        int incoming = p.getInt(start + DataHeader.INCOMING_OFFSET);
        int segment = p.getUnsignedShort(start + DataHeader.SEGMENT_LENGTH_OFFSET);
        int flags = p.getUnsignedByte(start + DataHeader.FLAGS_OFFSET);
        if (length < DataHeader.LENGTH + segment) {
            return DropReason.TRUNCATED;
        }
        if (length > DataHeader.LENGTH + segment) {
            return DropReason.MALFORMED;
        }
        if (messageLength < 0 || offset < 0 || incoming < 0 || (flags & ~DataHeader.KNOWN_FLAGS) != 0) {
            return DropReason.MALFORMED;
        }
        if ((long) offset + segment > messageLength) {
            return DropReason.MALFORMED;
        }
        if (segment == 0 && messageLength != 0) {
            return DropReason.MALFORMED;
        }
        return null;
    }

    private static DropReason checkGrant(ByteBuf p, int start, int length) {
        if (length != GrantHeader.LENGTH) {
            return DropReason.MALFORMED;
        }
        if (p.getInt(start + GrantHeader.OFFSET_OFFSET) < 0
                || p.getUnsignedByte(start + GrantHeader.PRIORITY_OFFSET) >= CutoffsHeader.LEVELS) {
            return DropReason.MALFORMED;
        }
        return null;
    }

    private static DropReason checkResend(ByteBuf p, int start, int length) {
        if (length != ResendHeader.LENGTH) {
            return DropReason.MALFORMED;
        }
        int offset = p.getInt(start + ResendHeader.OFFSET_OFFSET);
        int len = p.getInt(start + ResendHeader.LENGTH_OFFSET);
        if (offset < 0 || len < 0 || p.getUnsignedByte(start + ResendHeader.PRIORITY_OFFSET) >= CutoffsHeader.LEVELS) {
            return DropReason.MALFORMED;
        }
        return null;
    }

    private static DropReason checkCutoffs(ByteBuf p, int start, int length) {
        if (length != CutoffsHeader.LENGTH) {
            return DropReason.MALFORMED;
        }
        boolean any = false;
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            int c = p.getInt(start + CutoffsHeader.CUTOFFS_OFFSET + 4 * level);
            if (c < 0) {
                return DropReason.MALFORMED;
            }
            any |= c > 0;
        }
        return any ? null : DropReason.MALFORMED;
    }

    private static DropReason checkAck(ByteBuf p, int start, int length) {
        int count = p.getUnsignedShort(start + AckHeader.COUNT_OFFSET);
        if (length < AckHeader.lengthFor(count)) {
            return DropReason.TRUNCATED;
        }
        return length == AckHeader.lengthFor(count) ? null : DropReason.MALFORMED;
    }
}
