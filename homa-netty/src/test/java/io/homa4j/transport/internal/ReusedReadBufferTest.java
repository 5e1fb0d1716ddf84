package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.SelectStrategy;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.UncheckedBooleanSupplier;
import io.netty.util.concurrent.FastThreadLocal;
import org.junit.jupiter.api.AfterEach;
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
    /** What the buffer is told of a loop that sleeps: whether it slept since the engine's last turn. */
    private boolean slept;
    private final ReusedReadBuffer buffer = new ReusedReadBuffer(SLOT, SLOTS, () -> { }, () -> slept);

    @AfterEach
    void releaseTheBuffersAndTheTurnCount() {
        buffer.releaseHeld(); // idempotent
        FastThreadLocal.removeAll(); // a busy-polling loop's turn count, when a test played that loop
    }

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

    /** One turn of a busy-polling loop running on this thread. */
    private static void turn(SelectStrategy loop) throws Exception {
        loop.calculateStrategy(() -> 0, false);
    }

    /** A wake-up of the socket with one read that brings {@code packets}; returns the capacity that read got. */
    private int wake(RecvByteBufAllocator.ExtendedHandle handle, int packets) {
        handle.reset(channel.config());
        ByteBuf readInto = handle.allocate(PooledByteBufAllocator.DEFAULT);
        int offered = readInto.writableBytes();
        buffer.packetsRead(packets);
        readInto.release(); // the channel's reference, after the packets were handed on
        return offered;
    }

    @Test
    void onABusyPollingLoopALonePacketAfterIdleTurnsIsReadWithASingleSlot() throws Exception {
        SelectStrategy loop = LoopTurns.countingBusyPoll().newSelectStrategy();
        turn(loop);
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        assertEquals(SLOT * SLOTS, wake(handle, 1), "no history yet: every slot");
        turn(loop);
        turn(loop);
        assertEquals(SLOT, wake(handle, 1), "one packet last time, idle turns since: one slot (recvmsg)");
        turn(loop);
        turn(loop);
        assertEquals(SLOT, wake(handle, 1));
        turn(loop);
        assertEquals(SLOT * SLOTS, wake(handle, 1),
                "readable again in the very next turn: the single read left datagrams behind");
        turn(loop);
        turn(loop);
        assertEquals(SLOT, wake(handle, 44), "the single read got a coalesced run (Netty cut it into packets)");
        turn(loop);
        turn(loop);
        assertEquals(SLOT * SLOTS, wake(handle, 2), "after a wake-up with more than one packet: every slot");
    }

    @Test
    void onlyTheFirstReadOfAWakeUpIsASingleSlot() throws Exception {
        SelectStrategy loop = LoopTurns.countingBusyPoll().newSelectStrategy();
        turn(loop);
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        wake(handle, 1);
        turn(loop);
        turn(loop);
        handle.reset(channel.config());
        ByteBuf first = handle.allocate(PooledByteBufAllocator.DEFAULT);
        assertEquals(SLOT, first.writableBytes());
        ByteBuf second = handle.allocate(PooledByteBufAllocator.DEFAULT);
        assertEquals(SLOT * SLOTS, second.writableBytes(), "a full single read is followed by a read of every slot");
        first.release();
        second.release();
    }

    @Test
    void onASleepingLoopALonePacketAfterSleepIsReadWithASingleSlot() {
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        slept = true;
        assertEquals(SLOT * SLOTS, wake(handle, 1), "no history yet: every slot");
        assertEquals(SLOT, wake(handle, 1), "one packet last time, slept since: one slot (recvmsg)");
        assertEquals(SLOT, wake(handle, 1));
        slept = false;
        assertEquals(SLOT * SLOTS, wake(handle, 1),
                "back without sleeping since the last turn: the single read left datagrams behind");
        slept = true;
        assertEquals(SLOT, wake(handle, 3), "one packet last time again");
        assertEquals(SLOT * SLOTS, wake(handle, 1), "after a wake-up with more than one packet: every slot");
    }

    @Test
    void aSleepingLoopWhoseEngineNeverSaysItSleptAlwaysReadsWithEverySlot() {
        RecvByteBufAllocator.ExtendedHandle handle = handle();
        slept = false;
        for (int i = 0; i < 4; i++) {
            assertEquals(SLOT * SLOTS, wake(handle, 1));
        }
    }
}
