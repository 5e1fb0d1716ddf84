package io.homa4j.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Builds encoded packets. Each method allocates exactly the packet's length from the allocator and returns a
 * buffer whose readable bytes are the packet; the caller owns it. Not thread-safe (reuses its flyweights).
 */
public final class PacketEncoder {
    private final ByteBufAllocator allocator;
    private final CommonHeader common = new CommonHeader();
    private final DataHeader data = new DataHeader();
    private final GrantHeader grant = new GrantHeader();
    private final ResendHeader resend = new ResendHeader();
    private final RpcUnknownHeader unknown = new RpcUnknownHeader();
    private final CutoffsHeader cutoffs = new CutoffsHeader();
    private final AckHeader ack = new AckHeader();

    public PacketEncoder(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    private ByteBuf allocate(int length) {
        ByteBuf b = allocator.buffer(length, length);
        b.writerIndex(length);
        return b;
    }

    /** A DATA packet carrying {@code segmentLength} bytes of {@code message} starting at {@code offset}. */
    public ByteBuf data(long rpcId, int messageLength, int offset, int incoming, int cutoffsVersion, int flags,
                        long ackId, ByteBuf message, int segmentLength) {
        ByteBuf b = allocate(DataHeader.LENGTH + segmentLength);
        data.wrap(b, 0).writeCommon(PacketType.DATA, rpcId);
        data.messageLength(messageLength).offset(offset).incoming(incoming).segmentLength(segmentLength)
                .cutoffsVersion(cutoffsVersion).flags(flags).ackId(ackId);
        if (segmentLength > 0) {
            b.setBytes(DataHeader.LENGTH, message, message.readerIndex() + offset, segmentLength);
        }
        return b;
    }

    public ByteBuf grant(long rpcId, int offset, int priority) {
        ByteBuf b = allocate(GrantHeader.LENGTH);
        grant.wrap(b, 0).writeCommon(PacketType.GRANT, rpcId);
        grant.offset(offset).priority(priority);
        return b;
    }

    public ByteBuf resend(long rpcId, int offset, int length, int priority) {
        ByteBuf b = allocate(ResendHeader.LENGTH);
        resend.wrap(b, 0).writeCommon(PacketType.RESEND, rpcId);
        resend.offset(offset).length(length).priority(priority);
        return b;
    }

    public ByteBuf rpcUnknown(long rpcId, long engineAgeNanos) {
        ByteBuf b = allocate(RpcUnknownHeader.LENGTH);
        unknown.wrap(b, 0).writeCommon(PacketType.RPC_UNKNOWN, rpcId);
        unknown.ageNanos(engineAgeNanos);
        return b;
    }

    public ByteBuf busy(long rpcId) {
        return headerOnly(PacketType.BUSY, rpcId);
    }

    public ByteBuf needAck(long rpcId) {
        return headerOnly(PacketType.NEED_ACK, rpcId);
    }

    private ByteBuf headerOnly(PacketType type, long rpcId) {
        ByteBuf b = allocate(CommonHeader.LENGTH);
        common.wrap(b, 0).writeCommon(type, rpcId);
        return b;
    }

    /** A CUTOFFS packet; {@code cutoffByLevel} has 8 entries. */
    public ByteBuf cutoffs(int[] cutoffByLevel, int version) {
        ByteBuf b = allocate(CutoffsHeader.LENGTH);
        cutoffs.wrap(b, 0).writeCommon(PacketType.CUTOFFS, 0);
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            cutoffs.cutoff(level, cutoffByLevel[level]);
        }
        cutoffs.cutoffsVersion(version);
        return b;
    }

    /** An ACK listing {@code count} ids from {@code ids}. */
    public ByteBuf ack(long rpcId, long[] ids, int count) {
        ByteBuf b = allocate(AckHeader.lengthFor(count));
        ack.wrap(b, 0).writeCommon(PacketType.ACK, rpcId);
        ack.count(count);
        for (int i = 0; i < count; i++) {
            ack.ackedId(i, ids[i]);
        }
        return b;
    }

    /** Most ids one ACK may carry within {@code maxUdpPayload} bytes. */
    public static int maxAckIds(int maxUdpPayload) {
        return Math.min(0xFFFF, (maxUdpPayload - AckHeader.IDS_OFFSET) / 8);
    }
}
