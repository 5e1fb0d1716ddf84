package io.homa4j.bench.simulate;

import io.homa4j.bench.workload.Workloads;
import io.homa4j.core.RpcFailure;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rack's message buffers carry lengths, not bytes, and the simulation cannot tell. */
class LengthOnlyBufferTest {
    private final UnpooledByteBufAllocator others = new UnpooledByteBufAllocator(false, true);
    private final RecyclingAllocator allocator = new RecyclingAllocator(others);

    @Test
    void aMessageBufferDropsWritesAndLeavesWhatItIsCopiedIntoAsItWas() {
        ByteBuf message = allocator.buffer(5_000, 100_000);
        assertInstanceOf(LengthOnlyBuffer.class, RecyclingAllocatorTest.inner(message));
        assertSame(allocator, message.alloc());
        assertEquals(5_000, message.capacity());
        assertEquals(100_000, message.maxCapacity());

        ByteBuf real = others.buffer(8, 8).writeLong(0x0102030405060708L);
        message.setBytes(0, real, 0, 8);
        message.writerIndex(5_000);
        ByteBuf packet = others.heapBuffer(8, 8).writeLong(7);
        packet.setBytes(0, message, 0, 8);
        assertEquals(7, packet.getLong(0), "a copy out of a length-only buffer leaves the destination alone");
        assertEquals(0, message.getLong(0));

        ByteBuf slice = message.retainedSlice(0, 4_000);
        assertEquals(2, message.refCnt());
        slice.release();
        assertTrue(message.release());
        assertEquals(0, message.refCnt());
        real.release();
        packet.release();
    }

    @Test
    void onlyMessageBuffersOfAKnownLengthOverFourKibibytesAreLengthOnly() {
        ByteBuf errorPayload = allocator.buffer(64); // written by the engine, unbounded: real
        ByteBuf shortMessage = allocator.buffer(1_000, RecyclingAllocator.LENGTH_ONLY_ABOVE);
        ByteBuf realMessages = new RecyclingAllocator(others, false).buffer(5_000, 100_000);
        assertSame(others, errorPayload.alloc());
        assertSame(others, shortMessage.alloc());
        assertSame(others, realMessages.alloc());
        assertFalse(RecyclingAllocatorTest.inner(realMessages) instanceof LengthOnlyBuffer);
        errorPayload.release();
        shortMessage.release();
        realMessages.release();
    }

    /**
     * A loaded rack (W4 up to 1 MB, so most bytes are in length-only buffers) run twice from one seed, with and
     * without payload bytes: every call ends at the same virtual time and every packet and event is the same in
     * number.
     */
    @Test
    void aRackGivesTheSameRunWithAndWithoutPayloadBytes() {
        SimulationPlan plan = new SimulationPlan(RackSpec.defaults().withHosts(4), ProtocolSetup.homa(),
                Workloads.W4.truncatedAt(1_000_000), 0.6, LoadBasis.WIRE, 0, 2_000_000L, 0, 5, 1_000);
        Run lengthsOnly = new Run(plan, false);
        Run realBytes = new Run(plan, true);
        assertTrue(lengthsOnly.completions.size() > 100, "a loaded run: " + lengthsOnly.completions.size());
        assertEquals(realBytes.completions, lengthsOnly.completions);
        assertEquals(realBytes.packets, lengthsOnly.packets);
        assertEquals(realBytes.events, lengthsOnly.events);
        assertEquals(realBytes.metrics, lengthsOnly.metrics);
    }

    /** One run of {@code plan}'s rack for 3 virtual ms: what it completed (length, arrival, end) and its counts. */
    private static final class Run implements CallObserver {
        final List<String> completions = new ArrayList<>();
        final List<String> metrics = new ArrayList<>();
        final long packets;
        final long events;

        Run(SimulationPlan plan, boolean realPayloads) {
            try (LoadedRack rack = new LoadedRack(plan, this, 2_000_000L, realPayloads)) {
                rack.advance(3_000_000L);
                packets = rack.network().packetsSent();
                events = rack.network().eventsProcessed();
                for (RackNode node : rack.nodes()) {
                    metrics.add(node.engine().metrics().toString());
                }
            }
        }

        @Override
        public void arrived(int length, long intendedNanos) {
        }

        @Override
        public void completed(int length, long intendedNanos, long endNanos) {
            completions.add(length + "@" + intendedNanos + "->" + endNanos);
        }

        @Override
        public void failed(int length, long intendedNanos, RpcFailure failure, long nowNanos) {
            completions.add(length + "@" + intendedNanos + " failed " + failure.code());
        }
    }
}
