package io.homa4j.core.internal.incoming;

import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IncomingMessageTest {
    private static final int LENGTH = 1_000_000;
    private static final int SEGMENT = 1_432;
    /** A granted segment that arrives after a lost batch of the message's first bytes: 4 packets received. */
    private static final int RECEIVED = 4 * SEGMENT;
    private static final int GRANTED_OFFSET = 88 * SEGMENT;

    @Test
    void aSegmentFarAheadOfTheDataIsRefusedWhenNothingInvitedIt() {
        assertEquals(IncomingMessage.TOO_FAR_AHEAD,
                IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, 0, GRANTED_OFFSET, SEGMENT));
    }

    @Test
    void aSegmentOurGrantsInvitedIsKeptHoweverLittleArrivedBeforeIt() {
        int invited = RECEIVED + 500_000;
        long growth = IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, invited, GRANTED_OFFSET, SEGMENT);
        assertTrue(growth >= GRANTED_OFFSET + SEGMENT - RECEIVED, "room for the segment: " + growth);
        assertTrue(RECEIVED + growth <= invited, "never more than the grants invited: " + growth);
    }

    @Test
    void invitationsDoNotReachBeyondWhatWasGranted() {
        int invited = 50 * SEGMENT;
        assertEquals(IncomingMessage.TOO_FAR_AHEAD,
                IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, invited, GRANTED_OFFSET, SEGMENT));
    }

    @Test
    void theSendersClaimOfWhatItMaySendInvitesNothing() {
        // A first packet claiming the whole message as sendable unasked (a forged 'incoming') reserves no more
        // than the bytes it brings allow; only the grant scheduler's granted(offset) invites bytes ahead.
        IncomingMessage claimed = new IncomingMessage(null, LENGTH, false, LENGTH, 1, -1);
        assertEquals(IncomingMessage.TOO_FAR_AHEAD, claimed.growthFor(GRANTED_OFFSET, SEGMENT));
        claimed.granted(GRANTED_OFFSET + SEGMENT, 0);
        assertTrue(claimed.growthFor(GRANTED_OFFSET, SEGMENT) > 0);
    }

    /** Heap buffers; after {@link #failAfter} more allocations every request fails as at the direct-memory limit. */
    private static final class CountingAllocator extends AbstractByteBufAllocator {
        final List<ByteBuf> handedOut = new ArrayList<>();
        int failAfter = Integer.MAX_VALUE;

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            if (failAfter-- <= 0) {
                throw new OutOfMemoryError("Cannot reserve " + initialCapacity + " bytes of direct buffer memory");
            }
            ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
            handedOut.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    /** Offers {@code [offset, offset + n)} of {@code message} to {@code m} as one DATA packet; returns accept's result. */
    private static int offer(IncomingMessage m, PacketEncoder encoder, byte[] message, int offset, int n) {
        ByteBuf packet = encoder.data(2, message.length, offset, 0, 0, 0, 0, Unpooled.wrappedBuffer(message), n);
        try {
            long growth = m.growthFor(offset, n);
            assertTrue(growth >= 0, "invited, so never too far ahead");
            return m.accept(new DataHeader().wrap(packet, packet.readerIndex()), packet,
                    packet.readerIndex() + DataHeader.LENGTH, growth);
        } finally {
            packet.release();
        }
    }

    @Test
    void aMessageOfSeveralPiecesArrivesByteExactInAnyOrderAsOneCompositePayload() {
        byte[] message = new byte[3 * IncomingMessage.PIECE_BYTES + 5_000];
        new Random(7).nextBytes(message);
        List<Integer> offsets = new ArrayList<>();
        for (int offset = 0; offset < message.length; offset += SEGMENT) {
            offsets.add(offset);
        }
        Collections.shuffle(offsets, new Random(7)); // segments straddle piece boundaries, in every order
        CountingAllocator alloc = new CountingAllocator();
        PacketEncoder encoder = new PacketEncoder(alloc);
        IncomingMessage m = new IncomingMessage(null, message.length, false, SEGMENT, 1, -1);
        m.granted(message.length, 0); // our grants invited all of it: any order is kept
        for (int offset : offsets) {
            int n = Math.min(SEGMENT, message.length - offset);
            assertEquals(n, offer(m, encoder, message, offset, n));
        }
        assertTrue(m.complete());
        ByteBuf payload = m.takePayload(alloc);
        try {
            assertInstanceOf(CompositeByteBuf.class, payload);
            assertEquals(message.length, payload.readableBytes());
            assertArrayEquals(message, ByteBufUtil.getBytes(payload));
        } finally {
            payload.release();
        }
        for (ByteBuf b : alloc.handedOut) {
            assertEquals(0, b.refCnt(), "every piece and packet released with the payload");
        }
    }

    @Test
    void aGrowthThatRunsOutOfMemoryHalfWayKeepsTheBufferAsItWasAndLeaksNothing() {
        byte[] message = new byte[4 * IncomingMessage.PIECE_BYTES];
        new Random(8).nextBytes(message);
        CountingAllocator alloc = new CountingAllocator();
        PacketEncoder encoder = new PacketEncoder(alloc);
        IncomingMessage m = new IncomingMessage(null, message.length, false, SEGMENT, 1, -1);
        m.granted(message.length, 0);
        assertEquals(SEGMENT, offer(m, encoder, message, 0, SEGMENT)); // one short first piece
        int before = alloc.handedOut.size();
        // The next growth regrows the first piece and appends three: the packet, the regrown piece and one
        // new piece succeed, the second new piece fails.
        alloc.failAfter = 3;
        int far = 3 * IncomingMessage.PIECE_BYTES;
        assertEquals(IncomingMessage.ALLOCATION_FAILED, offer(m, encoder, message, far, SEGMENT));
        for (ByteBuf b : alloc.handedOut.subList(before, alloc.handedOut.size())) {
            assertEquals(0, b.refCnt(), "what the failed growth allocated is released");
        }
        alloc.failAfter = Integer.MAX_VALUE;
        assertFalse(m.complete());
        for (int offset = SEGMENT; offset < message.length; offset += SEGMENT) {
            offer(m, encoder, message, offset, Math.min(SEGMENT, message.length - offset));
        }
        ByteBuf payload = m.takePayload(alloc);
        try {
            assertArrayEquals(message, ByteBufUtil.getBytes(payload), "the first bytes survived the failure");
        } finally {
            payload.release();
        }
    }
}
