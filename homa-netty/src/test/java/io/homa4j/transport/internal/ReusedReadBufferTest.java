package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.UncheckedBooleanSupplier;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReusedReadBufferTest {
    private static final int SLOT = 65_536;
    private static final int SLOTS = 16;

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ReusedReadBuffer buffer = new ReusedReadBuffer(SLOT * SLOTS, () -> { });

    private RecvByteBufAllocator.ExtendedHandle handle() {
        RecvByteBufAllocator.ExtendedHandle handle =
                (RecvByteBufAllocator.ExtendedHandle) buffer.maxMessagesPerRead(8).newHandle();
        handle.reset(channel.config());
        return handle;
    }

    /** What Netty's recvmmsg read reports: the slots it offered, and the slots filled times the slot size. */
    private static void read(RecvByteBufAllocator.ExtendedHandle handle, int slotsFilled) {
        handle.attemptedBytesRead(SLOTS * SLOT);
        handle.lastBytesRead(Math.max(1, slotsFilled * SLOT));
        handle.incMessagesRead(slotsFilled);
    }

    @Test
    void aReadThatLeftSlotsEmptyEndsTheWakeUp() {
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        read(handle, 3);
        assertFalse(handle.continueReading(UncheckedBooleanSupplier.TRUE_SUPPLIER),
                "the socket was drained; level-triggered epoll reports anything that came after");
    }

    @Test
    void aReadThatFilledEverySlotReadsAgainUpToTheMessageLimit() {
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        read(handle, SLOTS);
        assertFalse(handle.continueReading(UncheckedBooleanSupplier.TRUE_SUPPLIER),
                "16 messages reach the limit of 8 per wake-up");
        handle.reset(channel.config());
        RecvByteBufAllocator.ExtendedHandle roomy =
                (RecvByteBufAllocator.ExtendedHandle) buffer.maxMessagesPerRead(64).newHandle();
        roomy.reset(channel.config());
        read(roomy, SLOTS);
        assertTrue(roomy.continueReading(UncheckedBooleanSupplier.TRUE_SUPPLIER), "maybe more waiting");
    }

    @Test
    void theBufferIsUsedAgainOnceTheReadersReleasedIt() {
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        ByteBuf first = handle.allocate(PooledByteBufAllocator.DEFAULT);
        first.release(); // the channel's reference, after the packets were handed on
        ByteBuf second = handle.allocate(PooledByteBufAllocator.DEFAULT);
        assertSame(first, second);
        ByteBuf stillRead = second; // a reader keeps the slice's buffer this time
        ByteBuf third = handle.allocate(PooledByteBufAllocator.DEFAULT);
        assertNotSame(stillRead, third, "a buffer still referenced is left to its holders");
        assertEquals(1, stillRead.refCnt(), "the allocator dropped its own reference to it");
        stillRead.release();
        third.release();
        buffer.releaseHeld();
        assertEquals(0, third.refCnt());
        channel.finishAndReleaseAll();
    }
}
