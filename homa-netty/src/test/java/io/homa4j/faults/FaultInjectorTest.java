package io.homa4j.faults;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fault injector on its own, with a path that records what it is given: rates, determinism, ownership. */
class FaultInjectorTest {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4001);
    private static final int N = 10_000;

    private final RecordingPath path = new RecordingPath();
    private final List<ByteBuf> offered = new ArrayList<>();

    @AfterEach
    void releaseAndCheck() {
        path.releaseAll();
        for (ByteBuf b : offered) {
            assertEquals(0, b.refCnt(), "every offered packet ends released exactly once");
        }
    }

    private ByteBuf packet(int i) {
        ByteBuf b = Unpooled.directBuffer(64).writeInt(i).writeZero(60);
        offered.add(b);
        return b;
    }

    private void offerOutbound(DatagramFilter filter, int count) {
        for (int i = 0; i < count; i++) {
            filter.outbound(PEER, i % 8, packet(i), path);
        }
    }

    @Test
    void dropRateMatchesTheProbabilityAndDroppedPacketsAreReleased() {
        FaultInjector faults = new FaultInjector(7, Faults.NONE.withDrop(0.1), Faults.NONE);
        offerOutbound(faults, N);
        FaultCounts counts = faults.outboundCounts();
        assertEquals(N, counts.seen());
        assertEquals(counts.dropped(), path.dropped);
        assertEquals(N - counts.dropped(), path.forwarded.size());
        assertTrue(Math.abs(counts.dropped() - N / 10) < N / 100, "about 10% dropped: " + counts.dropped());
        assertEquals(counts.dropped(), faults.droppedOutbound());
        assertEquals(0, faults.droppedInbound());
    }

    @Test
    void theSameSeedMeetsTheSameFaultsAndDirectionsAreIndependent() {
        Faults mixed = new Faults(0.1, 0.05, 0.05, 0.1, 1_000);
        FaultInjector a = FaultInjector.symmetric(42, mixed);
        offerOutbound(a, 2_000);
        List<String> first = path.describe();
        path.releaseAll();

        FaultInjector b = FaultInjector.symmetric(42, mixed);
        for (int i = 0; i < 2_000; i++) {
            b.inbound(PEER, packet(-i), new RecordingPath().dropAll()); // inbound traffic in between ...
            b.outbound(PEER, i % 8, packet(i), path);
        }
        assertEquals(first, path.describe(), "... does not change what happens outbound");
        assertEquals(a.outboundCounts(), b.outboundCounts());
    }

    @Test
    void aDuplicateIsASeparateCopyWithTheSameBytes() {
        FaultInjector faults = new FaultInjector(1, Faults.NONE.withDuplicate(1), Faults.NONE);
        ByteBuf p = packet(99);
        faults.outbound(PEER, 3, p, path);
        assertEquals(2, path.forwarded.size());
        ByteBuf original = path.forwarded.get(0).packet;
        ByteBuf copy = path.forwarded.get(1).packet;
        assertNotSame(original, copy);
        assertEquals(original, copy, "same bytes");
        assertEquals(1, original.refCnt());
        assertEquals(1, copy.refCnt());
        assertEquals(3, path.forwarded.get(1).level);
        assertEquals(1, faults.outboundCounts().duplicated());
    }

    @Test
    void corruptionFlipsOneBitOfACopyAndLeavesTheSendersBytesAlone() {
        // The engine sends slices of message buffers it keeps for retransmission: they must stay intact.
        ByteBuf message = Unpooled.directBuffer(256).writeZero(256);
        FaultInjector faults = new FaultInjector(3, Faults.NONE.withCorrupt(1), Faults.NONE);
        for (int i = 0; i < 100; i++) {
            faults.outbound(PEER, 0, message.retainedSlice(64, 128), path);
        }
        assertEquals(100, path.forwarded.size());
        for (Forwarded f : path.forwarded) {
            assertEquals(128, f.packet.readableBytes());
            int flippedBits = 0;
            for (int i = 0; i < 128; i++) {
                flippedBits += Integer.bitCount(f.packet.getByte(f.packet.readerIndex() + i) & 0xFF);
            }
            assertEquals(1, flippedBits);
        }
        for (int i = 0; i < 256; i++) {
            assertEquals(0, message.getByte(i), "original bytes untouched");
        }
        assertEquals(1, message.refCnt(), "the slices given to the filter were released");
        message.release();
        assertEquals(100, faults.outboundCounts().corrupted());
    }

    @Test
    void delaysAreBoundedAndEachCopyIsDelayedOnItsOwn() {
        FaultInjector faults = new FaultInjector(5, Faults.NONE.withDuplicate(0.5).withDelay(0.5, 500), Faults.NONE);
        offerOutbound(faults, N);
        FaultCounts counts = faults.outboundCounts();
        long later = path.forwarded.stream().filter(f -> f.delayNanos > 0).count();
        assertEquals(counts.delayed(), later);
        assertEquals(N + counts.duplicated(), path.forwarded.size());
        assertTrue(path.forwarded.stream().allMatch(f -> f.delayNanos >= 0 && f.delayNanos <= 500));
        assertTrue(Math.abs(later - path.forwarded.size() / 2) < path.forwarded.size() / 50, "about half: " + later);
    }

    @Test
    void inboundFaultsApplyOnlyInbound() {
        FaultInjector faults = new FaultInjector(9, Faults.NONE, Faults.NONE.withDrop(1));
        offerOutbound(faults, 10);
        faults.inbound(PEER, packet(1), path);
        assertEquals(10, path.forwarded.size());
        assertEquals(1, path.dropped);
        assertEquals(new FaultCounts(1, 1, 0, 0, 0), faults.inboundCounts());
    }

    @Test
    void chainedFiltersSeeWhatTheFirstForwardsAndDelaysAddUp() {
        DatagramFilter delayAll = new FaultInjector(1, Faults.NONE.withDelay(1, 100), Faults.NONE);
        FaultInjector duplicateAll = new FaultInjector(2, Faults.NONE.withDuplicate(1).withDelay(1, 100),
                Faults.NONE);
        offerOutbound(DatagramFilter.chain(delayAll, duplicateAll), 1_000);
        assertEquals(2_000, path.forwarded.size());
        assertTrue(path.forwarded.stream().allMatch(f -> f.delayNanos >= 2 && f.delayNanos <= 200));
        assertTrue(path.forwarded.stream().anyMatch(f -> f.delayNanos > 100), "the delays add up");

        DatagramFilter dropAll = new FaultInjector(3, Faults.NONE.withDrop(1), Faults.NONE);
        path.releaseAll();
        offerOutbound(DatagramFilter.chain(duplicateAll, dropAll), 100);
        assertEquals(0, path.forwarded.size());
        assertEquals(200, path.dropped, "the copies are dropped too");
    }

    @Test
    void probabilitiesOutsideZeroToOneAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Faults.NONE.withDrop(1.5));
        assertThrows(IllegalArgumentException.class, () -> Faults.NONE.withCorrupt(-0.1));
        assertThrows(IllegalArgumentException.class, () -> Faults.NONE.withDuplicate(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Faults.NONE.withDelay(0.5, 0));
    }

    private record Forwarded(ByteBuf packet, int level, long delayNanos) {
    }

    /** Keeps what it is given; counts and releases drops. */
    private static final class RecordingPath implements DatagramPath {
        final List<Forwarded> forwarded = new ArrayList<>();
        long dropped;
        private boolean dropEverything;

        RecordingPath dropAll() {
            dropEverything = true;
            return this;
        }

        @Override
        public void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            forwardLater(0, address, priorityLevel, packet);
        }

        @Override
        public void forwardLater(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            if (dropEverything) {
                drop(packet);
                return;
            }
            forwarded.add(new Forwarded(packet, priorityLevel, delayNanos));
        }

        @Override
        public void drop(ByteBuf packet) {
            dropped++;
            packet.release();
        }

        @Override
        public ByteBufAllocator alloc() {
            return ByteBufAllocator.DEFAULT;
        }

        List<String> describe() {
            List<String> out = new ArrayList<>();
            for (Forwarded f : forwarded) {
                out.add(f.packet.getInt(f.packet.readerIndex()) + "/" + f.level + "/" + f.delayNanos + "/"
                        + f.packet.hashCode());
            }
            return out;
        }

        void releaseAll() {
            forwarded.forEach(f -> f.packet.release());
            forwarded.clear();
            dropped = 0;
        }
    }
}
