package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * Builds encoded packets. Each method allocates exactly the packet's length from the allocator and returns a
 * buffer whose readable bytes are the packet; the caller owns it. Not thread-safe (reuses its flyweights).
 */
@Unstable("packet flyweights for tests and tools")
public final class PacketEncoder {
    private final ByteBufAllocator allocator;
    /**
     * Headers are assembled here, then copied into the packet with one call: a packet buffer may be tracked by
     * Netty's leak detector, which records every access, and a header is a dozen field writes.
     */
    private final byte[] scratchBytes = new byte[CutoffsHeader.LENGTH];
    private final ByteBuf scratch = Unpooled.wrappedBuffer(scratchBytes);
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

    /** A packet of {@code length} bytes starting with the {@code headerLength} bytes assembled in scratch. */
    private ByteBuf packet(int length, int headerLength) {
        ByteBuf b = allocator.buffer(length, length);
        // From the array behind scratch, not from scratch: the same bytes, but the adaptive allocator's buffers copy
        // a ByteBuf source through a freshly allocated NIO view on every packet, an array without one.
        b.writeBytes(scratchBytes, 0, headerLength);
        return b;
    }

    /**
     * A DATA packet carrying {@code segmentLength} bytes of {@code message} starting at {@code offset}.
     *
     * @throws RuntimeException (from Netty) when {@code message} cannot be read there, typically
     *         {@code IllegalReferenceCountException} for a released buffer; no packet is left allocated
     */
    public ByteBuf data(long rpcId, int messageLength, int offset, int incoming, int cutoffsVersion, int flags,
                        long ackId, ByteBuf message, int segmentLength) {
        return data(rpcId, messageLength, offset, incoming, cutoffsVersion, flags, ackId, message, segmentLength, -1);
    }

    /**
     * {@link #data(long, int, int, int, int, int, long, ByteBuf, int)} that says the priority level it goes out at
     * ({@code sentLevel}, -1: not said; see {@link DataHeader#sentLevel()}).
     */
    public ByteBuf data(long rpcId, int messageLength, int offset, int incoming, int cutoffsVersion, int flags,
                        long ackId, ByteBuf message, int segmentLength, int sentLevel) {
        data.wrap(scratch, 0).writeCommon(PacketType.DATA, rpcId);
        data.messageLength(messageLength).offset(offset).incoming(incoming).segmentLength(segmentLength)
                .cutoffsVersion(cutoffsVersion).flags(flags).sentLevel(sentLevel).ackId(ackId);
        ByteBuf b = packet(DataHeader.LENGTH + segmentLength, DataHeader.LENGTH);
        if (segmentLength > 0) {
            try {
                b.writeBytes(message, message.readerIndex() + offset, segmentLength);
            } catch (RuntimeException unreadable) {
                // The message buffer was released or shrunk by its owner: the packet is ours to free.
                b.release();
                throw unreadable;
            }
        }
        return b;
    }

    public ByteBuf grant(long rpcId, int offset, int priority) {
        grant.wrap(scratch, 0).writeCommon(PacketType.GRANT, rpcId);
        grant.offset(offset).priority(priority);
        return packet(GrantHeader.LENGTH, GrantHeader.LENGTH);
    }

    public ByteBuf resend(long rpcId, int offset, int length, int priority) {
        resend.wrap(scratch, 0).writeCommon(PacketType.RESEND, rpcId);
        resend.offset(offset).length(length).priority(priority);
        return packet(ResendHeader.LENGTH, ResendHeader.LENGTH);
    }

    public ByteBuf rpcUnknown(long rpcId, long engineAgeNanos) {
        unknown.wrap(scratch, 0).writeCommon(PacketType.RPC_UNKNOWN, rpcId);
        unknown.ageNanos(engineAgeNanos);
        return packet(RpcUnknownHeader.LENGTH, RpcUnknownHeader.LENGTH);
    }

    public ByteBuf busy(long rpcId) {
        return headerOnly(PacketType.BUSY, rpcId);
    }

    public ByteBuf needAck(long rpcId) {
        return headerOnly(PacketType.NEED_ACK, rpcId);
    }

    private ByteBuf headerOnly(PacketType type, long rpcId) {
        common.wrap(scratch, 0).writeCommon(type, rpcId);
        return packet(CommonHeader.LENGTH, CommonHeader.LENGTH);
    }

    /** A CUTOFFS packet; {@code cutoffByLevel} has 8 entries. */
    public ByteBuf cutoffs(int[] cutoffByLevel, int version) {
        cutoffs.wrap(scratch, 0).writeCommon(PacketType.CUTOFFS, 0);
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            cutoffs.cutoff(level, cutoffByLevel[level]);
        }
        cutoffs.cutoffsVersion(version);
        return packet(CutoffsHeader.LENGTH, CutoffsHeader.LENGTH);
    }

    /** An ACK listing {@code count} ids from {@code ids}. */
    public ByteBuf ack(long rpcId, long[] ids, int count) {
        ack.wrap(scratch, 0).writeCommon(PacketType.ACK, rpcId);
        ack.count(count);
        ByteBuf b = packet(AckHeader.lengthFor(count), AckHeader.IDS_OFFSET);
        for (int i = 0; i < count; i++) {
            b.writeLong(ids[i]);
        }
        return b;
    }

    /** Most ids one ACK may carry within {@code maxUdpPayload} bytes. */
    public static int maxAckIds(int maxUdpPayload) {
        return Math.min(0xFFFF, (maxUdpPayload - AckHeader.IDS_OFFSET) / 8);
    }
}
