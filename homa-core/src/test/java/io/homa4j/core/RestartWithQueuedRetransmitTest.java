package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fuzz finding of Transmitter.rewind, as a plain test: a client restarts its request (RPC_UNKNOWN from the
 * server while the request is still being sent) while a retransmission the server asked for is queued behind the
 * pacer. The restart must drop the queued retransmission; before the fix the next poll threw.
 */
class RestartWithQueuedRetransmitTest {

    @Test
    void restartDropsTheQueuedRetransmissionAndStartsOverFromByteZero() {
        UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(false, true);
        FuzzedEngine t = new FuzzedEngine(allocator, new Random(1));
        PacketEncoder peer = new PacketEncoder(new UnpooledByteBufAllocator(false, true));
        ByteBuf request = allocator.heapBuffer(500_000);
        request.writerIndex(500_000);
        long id = t.engine.call(FuzzedEngine.PEER, request, Long.MAX_VALUE, t.now);
        long sentBefore = t.sent;
        assertTrue(sentBefore > 0 && t.engine.pacerQueueNanos(t.now) > 0, "the pacer is holding packets back");

        // Same instant, so the pacer still has no room: the retransmission waits in the queue.
        t.feed(peer.resend(id ^ 1, 0, 1_000, 7), FuzzedEngine.PEER);
        t.feed(peer.rpcUnknown(id ^ 1, 10_000_000_000L), FuzzedEngine.PEER); // an old server: restart is safe
        assertEquals(1, t.engine.metrics().clientRestarts());

        for (int i = 0; i < 10; i++) {
            t.now += 100_000;
            assertDoesNotThrow(() -> t.engine.poll(t.now));
        }
        assertTrue(t.sent > sentBefore, "the restarted request is being sent");
        assertEquals(0, t.engine.metrics().drops(DropReason.INTERNAL_ERROR));
        assertEquals(1, t.engine.clientRpcCount());
        t.closeAndAssertEmpty();
        assertEquals(0, allocator.metric().usedHeapMemory());
    }
}
