package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Packets cut from one block: contiguity, reuse of a free block, ownership of a busy one, close. */
class PacketArenaTest {
    private static final int MAX_PACKET = 1500;
    private static final int BLOCK = 4 * MAX_PACKET;
    private final UnpooledByteBufAllocator backing = new UnpooledByteBufAllocator(true, true);
    private final PacketArena arena = new PacketArena(backing, MAX_PACKET, BLOCK);

    private static ByteBuf filled(ByteBuf packet, int fill) {
        while (packet.isWritable()) {
            packet.writeByte(fill);
        }
        return packet;
    }

    /** A packet of {@code length} bytes from the arena, written full of {@code fill}. */
    private ByteBuf cut(int length, int fill) {
        return filled(arena.buffer(length, length), fill);
    }

    @Test
    void exactSizePacketsAreCutOneAfterTheOtherFromOneBlock() {
        ByteBuf a = cut(1000, 1);
        assertEquals(0, arena.claimOffset(a));
        ByteBuf block = arena.block();
        ByteBuf b = cut(1000, 2);
        assertEquals(1000, arena.claimOffset(b));
        assertSame(block, arena.block());
        assertEquals(1000, a.writerIndex(), "written to its capacity");
        assertEquals(1000, a.maxCapacity(), "cannot grow into the next packet");
        assertEquals(1, block.getByte(999));
        assertEquals(2, block.getByte(1000));
        assertEquals(3, block.refCnt(), "the arena's reference and one per packet");
        a.release();
        b.release();
        assertEquals(1, block.refCnt());
        arena.close();
        assertEquals(0, block.refCnt());
    }

    @Test
    void aPacketIsClaimedOnceAndOnlyWhenCutLastAndFullyWritten() {
        ByteBuf a = cut(100, 1);
        ByteBuf b = arena.buffer(100, 100);
        assertEquals(-1, arena.claimOffset(a), "not the packet cut last");
        assertEquals(-1, arena.claimOffset(b), "not fully written");
        ByteBuf c = cut(100, 3);
        c.readByte();
        assertEquals(-1, arena.claimOffset(c), "partly read");
        ByteBuf d = cut(100, 4);
        assertEquals(300, arena.claimOffset(d));
        assertEquals(-1, arena.claimOffset(d), "claimed already");
        a.release();
        b.release();
        c.release();
        d.release();
        arena.close();
    }

    @Test
    void otherRequestsGoToTheBackingAllocator() {
        ByteBuf growable = arena.buffer(100);
        ByteBuf large = arena.directBuffer(MAX_PACKET + 1, MAX_PACKET + 1);
        ByteBuf empty = arena.buffer(0, 0);
        ByteBuf heap = arena.heapBuffer(100, 100);
        assertNull(arena.block(), "no block taken");
        assertEquals(Integer.MAX_VALUE, growable.maxCapacity());
        assertTrue(heap.hasArray());
        growable.release();
        large.release();
        empty.release();
        heap.release();
    }

    @Test
    void aBlockNoPacketHoldsIsUsedAgainFromItsStart() {
        ByteBuf first = cut(700, 1);
        ByteBuf block = arena.block();
        first.release();
        ByteBuf second = cut(700, 2);
        assertSame(block, arena.block());
        assertEquals(0, arena.claimOffset(second), "started over: no packet held the block");
        second.release();
        arena.close();
        assertEquals(0, block.refCnt());
    }

    @Test
    void aFullBlockStillHeldIsLeftToItsPacketsAndANewOneTaken() {
        ByteBuf[] held = new ByteBuf[4];
        for (int i = 0; i < held.length; i++) {
            held[i] = cut(MAX_PACKET, i);
        }
        ByteBuf full = arena.block();
        ByteBuf next = cut(MAX_PACKET, 9);
        assertNotSame(full, arena.block());
        assertEquals(0, arena.claimOffset(next));
        assertEquals(4, full.refCnt(), "the arena let go; its packets hold it");
        for (ByteBuf p : held) {
            p.release();
        }
        assertEquals(0, full.refCnt(), "freed by its last packet");
        next.release();
        arena.close();
    }

    @Test
    void afterCloseNothingIsCutFromABlock() {
        ByteBuf p = cut(100, 1);
        ByteBuf block = arena.block();
        arena.close();
        assertEquals(1, block.refCnt(), "the packet still holds it");
        ByteBuf late = arena.buffer(100, 100);
        assertNull(arena.block());
        assertEquals(-1, arena.claimOffset(late));
        late.release();
        p.release();
        assertEquals(0, block.refCnt());
        arena.close(); // idempotent
    }

    @Test
    void aBlockSmallerThanAPacketIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PacketArena(backing, 2000, 1000));
    }
}
