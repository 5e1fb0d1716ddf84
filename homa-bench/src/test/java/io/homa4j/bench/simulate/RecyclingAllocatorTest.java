package io.homa4j.bench.simulate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

class RecyclingAllocatorTest {
    private final UnpooledByteBufAllocator others = new UnpooledByteBufAllocator(false, true);
    private final RecyclingAllocator allocator = new RecyclingAllocator(others);

    /** The buffer under a leak detector's wrapper, if any. */
    static ByteBuf inner(ByteBuf b) {
        return b.unwrap() != null ? b.unwrap() : b;
    }

    @Test
    void aReleasedPacketBufferIsHandedOutAgainLikeNew() {
        ByteBuf first = allocator.buffer(1_472, 1_472);
        first.writeLong(42).readByte();
        first.markReaderIndex();
        ByteBuf kept = inner(first);
        first.release();
        ByteBuf second = allocator.buffer(1_472, 1_472);
        assertSame(kept, inner(second));
        assertEquals(1, second.refCnt());
        assertEquals(0, second.readerIndex());
        assertEquals(0, second.writerIndex());
        assertEquals(1_472, second.capacity());
        assertEquals(1_472, second.maxCapacity());
        second.writeByte(1).resetReaderIndex(); // marks are back at 0
        assertEquals(0, second.readerIndex());
        ByteBuf third = allocator.buffer(1_472, 1_472);
        assertNotSame(kept, inner(third)); // only one was released
        second.release();
        third.release();
    }

    @Test
    void otherRequestsGoToTheOtherAllocator() {
        ByteBuf growable = allocator.buffer(64);
        ByteBuf large = allocator.buffer(RecyclingAllocator.MAX_KEPT_LENGTH + 1, RecyclingAllocator.MAX_KEPT_LENGTH + 1);
        assertSame(others, growable.alloc());
        assertSame(others, large.alloc());
        growable.release();
        large.release();
    }

    @Test
    void aResizedBufferIsNotKept() {
        ByteBuf b = allocator.buffer(100, 100);
        ByteBuf kept = inner(b);
        b.capacity(50);
        b.release();
        ByteBuf sameLength = allocator.buffer(100, 100);
        ByteBuf newLength = allocator.buffer(50, 50);
        assertNotSame(kept, inner(sameLength));
        assertNotSame(kept, inner(newLength));
        sameLength.release();
        newLength.release();
    }
}
