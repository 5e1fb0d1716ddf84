package io.homa4j.core.sim;

import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.GrantHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts, from the wire alone, messages towards one receiver that hold scheduled grants, in two senses:
 * <ul>
 *   <li><em>slot holders</em>: granted beyond their unscheduled bytes (GRANTs the receiver sent), not yet wholly
 *       granted, and not wholly received: what maxOvercommit limits (a fully granted message leaves the set, as
 *       in the Linux module);</li>
 *   <li><em>in flight</em>: granted beyond their unscheduled bytes and not wholly received, fully granted or not.</li>
 * </ul>
 * An independent check of the engine's own {@code grantedMessagesHighWater}. Assumes no duplication or loss
 * (every delivered DATA byte is new).
 */
final class GrantWatcher implements PacketTap {
    private final SimHost receiver;
    private final int unscheduledBytes;
    private final Map<Long, long[]> messages = new HashMap<>(); // key -> {granted, received, length}
    private int slotHolders;
    private int maxSlotHolders;
    private int inFlight;
    private int maxInFlight;

    GrantWatcher(SimHost receiver, int unscheduledBytes) {
        this.receiver = receiver;
        this.unscheduledBytes = unscheduledBytes;
    }

    /** Most messages holding a grant slot at once. */
    int maxSlotHolders() {
        return maxSlotHolders;
    }

    /** Most messages with scheduled bytes granted but not received at once. */
    int maxInFlight() {
        return maxInFlight;
    }

    private static long key(SimHost peer, ByteBuf p) {
        long id = p.getLong(p.readerIndex() + CommonHeader.RPC_ID_OFFSET) & ~1L; // both ends of one RPC
        return ((long) peer.index() << 48) ^ id;
    }

    private static PacketType type(ByteBuf p) {
        return PacketType.fromCode(p.getUnsignedByte(p.readerIndex() + CommonHeader.TYPE_OFFSET));
    }

    @Override
    public void sent(SimHost from, SimHost to, int level, ByteBuf packet, long nowNanos) {
        if (from == receiver && to != null && type(packet) == PacketType.GRANT) {
            long[] m = messages.computeIfAbsent(key(to, packet), k -> new long[3]);
            boolean slotBefore = holdsSlot(m);
            boolean flightBefore = inFlight(m);
            m[0] = Math.max(m[0], packet.getInt(packet.readerIndex() + GrantHeader.OFFSET_OFFSET));
            update(slotBefore, flightBefore, m);
        }
    }

    @Override
    public void delivered(SimHost from, SimHost to, int level, ByteBuf packet, long nowNanos) {
        if (to == receiver && type(packet) == PacketType.DATA) {
            long[] m = messages.computeIfAbsent(key(from, packet), k -> new long[3]);
            boolean slotBefore = holdsSlot(m);
            boolean flightBefore = inFlight(m);
            m[1] += packet.readableBytes() - DataHeader.LENGTH;
            m[2] = packet.getInt(packet.readerIndex() + DataHeader.MESSAGE_LENGTH_OFFSET);
            update(slotBefore, flightBefore, m);
        }
    }

    private boolean inFlight(long[] m) {
        return m[0] > unscheduledBytes && m[1] < m[0];
    }

    private boolean holdsSlot(long[] m) {
        return inFlight(m) && m[0] < m[2];
    }

    private void update(boolean slotBefore, boolean flightBefore, long[] m) {
        boolean slot = holdsSlot(m);
        if (slot != slotBefore) {
            slotHolders += slot ? 1 : -1;
            maxSlotHolders = Math.max(maxSlotHolders, slotHolders);
        }
        boolean flight = inFlight(m);
        if (flight != flightBefore) {
            inFlight += flight ? 1 : -1;
            maxInFlight = Math.max(maxInFlight, inFlight);
        }
    }
}
