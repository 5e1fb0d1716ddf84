package io.homa4j.core.sim;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The network itself, driven by {@link FakeNode}s: timing, queueing, priorities, buffers, faults, determinism. */
class SimulatedNetworkTest {
    /** 1,472 B of UDP payload + 28 B of IP/UDP = 1,500 wire bytes = 1,200 ns at 10 Gb/s. */
    private static final int FULL = 1_472;
    private SimulatedNetwork network;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private FakeNode[] start(NetworkConfig.Builder config) {
        network = new SimulatedNetwork(config.build());
        return FakeNode.attachAll(network);
    }

    @Test
    void addressesAreInTheBenchmarkingRange() {
        assertEquals("198.18.0.1", SimulatedNetwork.hostAddress(0, 1).getAddress().getHostAddress());
        assertEquals("198.18.0.16", SimulatedNetwork.hostAddress(15, 1).getAddress().getHostAddress());
        assertEquals("198.18.1.0", SimulatedNetwork.hostAddress(255, 1).getAddress().getHostAddress());
        assertEquals(4_000, SimulatedNetwork.hostAddress(0, 4_000).getPort());
        network = new SimulatedNetwork(NetworkConfig.builder().hosts(3).build());
        assertEquals(network.host(2), network.host(network.host(2).address()));
    }

    @Test
    void onePacketTakesTwoSerializationsAndTwoPropagations() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).linkGbps(10).propagationDelayNanos(500));
        nodes[0].send(network.host(1), 0, FULL, 1);
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(new FakeNode.Arrival(1_200 + 500 + 1_200 + 500, network.host(0).address(), FULL, 1)),
                nodes[1].arrivals);
    }

    @Test
    void idealLinksDeliverEveryPacketAfterTheLatencyAloneInSendingOrder() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(3).linkBitsPerSecond(NetworkConfig.UNLIMITED)
                .propagationDelayNanos(0).switchLatencyNanos(2_000));
        for (int i = 0; i < 100; i++) {
            nodes[0].send(network.host(2), 0, FULL, i);
            nodes[1].send(network.host(2), 0, FULL, 100 + i);
        }
        network.runUntilIdle(1_000_000);
        assertEquals(200, nodes[2].arrivals.size());
        assertTrue(nodes[2].arrivals.stream().allMatch(a -> a.nanos() == 2_000), "no serialization, no queue");
        List<Long> fromFirst = nodes[2].arrivals.stream().filter(a -> a.from().equals(network.host(0).address()))
                .map(FakeNode.Arrival::tag).toList();
        assertEquals(java.util.stream.LongStream.range(0, 100).boxed().toList(), fromFirst);
        assertEquals(0, network.serializationPicos(FULL));
    }

    @Test
    void anInjectedPacketArrivesFromItsClaimedSourceAfterTheDelayAndIsReleasedIfStillPendingAtClose() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).linkGbps(10).propagationDelayNanos(500));
        java.net.InetSocketAddress forger = new java.net.InetSocketAddress("198.18.9.9", 7);
        io.netty.buffer.ByteBuf forged = io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(16).writeLong(42).writeLong(0);
        network.inject(forger, network.host(1), forged, 300);
        assertTrue(network.runNext());
        assertEquals(List.of(new FakeNode.Arrival(300, forger, 16, 42)), nodes[1].arrivals);
        assertEquals(0, forged.refCnt(), "the node released it");
        assertFalse(network.runNext(), "nothing else pending");

        io.netty.buffer.ByteBuf late = io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(8).writeLong(43);
        network.inject(forger, network.host(0), late, 1_000_000);
        network.close();
        assertEquals(0, late.refCnt(), "released by close");
        assertEquals(1, network.drops(NetworkDropReason.NETWORK_CLOSED));
        assertTrue(nodes[0].arrivals.isEmpty());
    }

    @Test
    void switchLatencyAddsOnce() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).linkGbps(10).propagationDelayNanos(500)
                .switchLatencyNanos(300));
        nodes[0].send(network.host(1), 0, FULL, 1);
        network.runUntilIdle(1_000_000);
        assertEquals(3_700, nodes[1].arrivals.get(0).nanos());
    }

    @Test
    void smallPacketsAt100GbpsKeepExactPicosecondTiming() {
        // 64 B payload + 28 = 92 wire bytes = 7,360 ps at 100 Gb/s; 1,000 back to back pipeline with no queueing.
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).linkGbps(100).propagationDelayNanos(500));
        for (int i = 0; i < 1_000; i++) {
            nodes[0].send(network.host(1), 0, 64, i);
        }
        network.runUntilIdle(1_000_000);
        List<FakeNode.Arrival> got = nodes[1].arrivals;
        assertEquals(1_000, got.size());
        for (int i = 0; i < got.size(); i++) {
            long picos = (i + 1) * 7_360L + 500_000 + 7_360 + 500_000;
            assertEquals(picos / 1_000, got.get(i).nanos(), "packet " + i);
            assertEquals(i, got.get(i).tag());
        }
        // The next packet arrives at the very picosecond the previous one's last bit leaves; the arrival was
        // scheduled first, so for that instant both are counted.
        assertEquals(2 * 92, network.host(1).port().maxQueueBytes());
        assertEquals(7_360, network.serializationPicos(64));
    }

    @Test
    void nicSerializesBackToBackAndReportsItsBacklog() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).linkGbps(10).propagationDelayNanos(500));
        for (int i = 0; i < 3; i++) {
            nodes[0].send(network.host(1), 0, FULL, i);
        }
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(3_400L, 4_600L, 5_800L), nodes[1].arrivals.stream().map(FakeNode.Arrival::nanos).toList());
        assertEquals(3_600, network.host(0).maxNicBacklogNanos());
        assertEquals(4_500, network.host(0).maxNicBacklogBytes());
        assertEquals(3, network.host(0).packetsSent());
        assertEquals(3 * FULL, network.host(1).bytesReceived());
    }

    @Test
    void twoSendersToOneReceiverQueueAtItsPort() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(3).linkGbps(10).propagationDelayNanos(500));
        nodes[0].send(network.host(2), 0, FULL, 0);
        nodes[1].send(network.host(2), 0, FULL, 1);
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(3_400L, 4_600L), nodes[2].arrivals.stream().map(FakeNode.Arrival::nanos).toList());
        assertEquals(List.of(0L, 1L), nodes[2].tags(), "simultaneous arrivals keep scheduling order");
        SwitchPort port = network.host(2).port();
        assertEquals(3_000, port.maxQueueBytes());
        assertEquals(2, port.maxQueuePackets());
        assertEquals(0, port.queueBytes());
        assertEquals(2, port.packetsTransmitted());
        assertEquals(3_000, network.maxSharedBufferBytes());
    }

    @Test
    void higherPriorityOvertakesQueuedLowerPriorityButNotThePacketOnTheWire() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(5).linkGbps(10).propagationDelayNanos(500));
        SimHost receiver = network.host(4);
        // Two senders at line rate into one downlink: the level-0 queue grows by one packet every 1,200 ns.
        for (int i = 0; i < 10; i++) {
            nodes[0].send(receiver, 0, FULL, i);
            nodes[1].send(receiver, 0, FULL, 100 + i);
        }
        // Sent at 6,000 ns, these reach the switch at 7,700 ns, when the port starts its sixth packet.
        network.schedule(6_000, () -> nodes[2].send(receiver, 7, FULL, 777));
        network.schedule(6_000, () -> nodes[3].send(receiver, 3, FULL, 333));
        network.runUntilIdle(1_000_000);

        List<Long> order = nodes[4].tags();
        assertEquals(22, order.size());
        assertEquals(5, order.indexOf(777L), "level 7 goes right after the five packets sent before it: " + order);
        assertEquals(6, order.indexOf(333L), "then level 3, ahead of the waiting level-0 packets: " + order);
        assertEquals(7_700 + 1_200 + 500, nodes[4].arrivals.get(5).nanos());
        assertEquals(7_700 + 2 * 1_200 + 500, nodes[4].arrivals.get(6).nanos());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), order.stream().filter(t -> t < 10).toList(),
                "FIFO within a level");
        SwitchPort port = receiver.port();
        assertEquals(1_500, port.maxQueueBytes(7));
        assertEquals(1_500, port.maxQueueBytes(3));
        assertTrue(port.maxQueueBytes(0) > 10 * 1_500, "level 0 backed up: " + port.maxQueueBytes(0));
    }

    @Test
    void fullPortBufferDropsArrivalsByPacketCount() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(5).portBufferPackets(2));
        for (int i = 0; i < 4; i++) {
            nodes[i].send(network.host(4), 0, FULL, i);
        }
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(0L, 1L), nodes[4].tags(), "first on the wire, second waits, the rest find no room");
        assertEquals(2, network.drops(NetworkDropReason.PORT_BUFFER_FULL));
        assertEquals(2, network.host(4).port().drops());
        assertEquals(2, network.packetsDelivered());
    }

    @Test
    void fullPortBufferDropsArrivalsByBytes() {
        // 4,499 B of room. The small packet serializes fastest and is gone before the big ones arrive; of those,
        // two fit (3,000 B) and the level-7 one finds no room: tail drop ignores priority.
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(5).portBufferBytes(4_499));
        nodes[0].send(network.host(4), 0, FULL, 0);
        nodes[1].send(network.host(4), 0, FULL, 1);
        nodes[2].send(network.host(4), 7, FULL, 2);
        nodes[3].send(network.host(4), 7, 100, 3);
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(3L, 0L, 1L), nodes[4].tags());
        assertEquals(1, network.drops(NetworkDropReason.PORT_BUFFER_FULL));
        assertEquals(1_500 + 1_500, network.host(4).port().maxQueueBytes());
    }

    @Test
    void sharedBufferLimitsAllPortsTogether() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(6).sharedBufferBytes(3_000));
        nodes[0].send(network.host(3), 0, FULL, 0);
        nodes[1].send(network.host(4), 0, FULL, 1);
        nodes[2].send(network.host(5), 0, FULL, 2);
        network.runUntilIdle(1_000_000);
        assertEquals(1, network.drops(NetworkDropReason.SHARED_BUFFER_FULL));
        assertEquals(2, network.packetsDelivered());
        assertEquals(3_000, network.maxSharedBufferBytes());
        assertEquals(0, network.sharedBufferBytes());
    }

    @Test
    void randomLossDropsAboutTheConfiguredShare() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).lossProbability(0.1).seed(7));
        for (int i = 0; i < 10_000; i++) {
            nodes[0].send(network.host(1), 0, 100, i);
        }
        network.runUntilIdle(10_000_000_000L);
        long lost = network.drops(NetworkDropReason.RANDOM_LOSS);
        // Binomial(10,000, 0.1): sigma = 30, so +-150 is five sigma.
        assertTrue(lost > 850 && lost < 1_150, "lost " + lost);
        assertEquals(10_000 - lost, nodes[1].arrivals.size());
        assertEquals(lost, network.totalDrops());
    }

    @Test
    void duplicationDeliversIdenticalCopiesRightBehindTheOriginal() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).duplicateProbability(1.0));
        for (int i = 0; i < 5; i++) {
            nodes[0].send(network.host(1), 0, FULL, i);
        }
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(0L, 0L, 1L, 1L, 2L, 2L, 3L, 3L, 4L, 4L), nodes[1].tags());
        assertEquals(5, network.duplicatesInjected());
        assertEquals(10, network.packetsDelivered());
    }

    @Test
    void reorderingHoldsSomePacketsBackButDeliversAll() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).reorderProbability(0.3)
                .reorderMaxDelayNanos(20_000).seed(3));
        for (int i = 0; i < 1_000; i++) {
            nodes[0].send(network.host(1), 0, 200, i);
        }
        network.runUntilIdle(1_000_000_000L);
        List<Long> tags = nodes[1].tags();
        assertEquals(1_000, tags.size());
        assertEquals(1_000, tags.stream().distinct().count());
        int inversions = 0;
        for (int i = 1; i < tags.size(); i++) {
            if (tags.get(i) < tags.get(i - 1)) {
                inversions++;
            }
        }
        assertTrue(inversions > 100, "inversions " + inversions);
        assertTrue(network.packetsReordered() > 200 && network.packetsReordered() < 400,
                "reordered " + network.packetsReordered());
    }

    @Test
    void sameSeedGivesTheSameTraceAndAnotherSeedAnother() {
        List<String> first = randomTrafficTrace(42);
        assertEquals(first, randomTrafficTrace(42));
        assertNotEquals(first, randomTrafficTrace(43));
        assertTrue(first.size() > 3_000, "trace has " + first.size() + " entries");
    }

    /** Four hosts sending random sizes and levels to each other through every fault and a small buffer. */
    private static List<String> randomTrafficTrace(long seed) {
        List<String> trace = new ArrayList<>();
        NetworkConfig config = NetworkConfig.builder().hosts(4).seed(seed).lossProbability(0.05)
                .duplicateProbability(0.05).reorderProbability(0.1).portBufferBytes(20_000).build();
        try (SimulatedNetwork net = new SimulatedNetwork(config)) {
            FakeNode[] nodes = FakeNode.attachAll(net);
            net.tap(new PacketTap() {
                @Override
                public void delivered(SimHost from, SimHost to, int level, io.netty.buffer.ByteBuf packet,
                                      long nowNanos) {
                    trace.add(nowNanos + " " + from.index() + ">" + to.index() + " L" + level + " #"
                            + packet.getLong(packet.readerIndex()));
                }

                @Override
                public void dropped(SimHost from, SimHost to, int level, io.netty.buffer.ByteBuf packet,
                                    NetworkDropReason reason, long nowNanos) {
                    trace.add(nowNanos + " drop " + reason + " #" + packet.getLong(packet.readerIndex()));
                }
            });
            SplittableRandom workload = new SplittableRandom(99); // same traffic for every seed
            for (int i = 0; i < 4_000; i++) {
                int from = workload.nextInt(4);
                int to = (from + 1 + workload.nextInt(3)) % 4;
                int level = workload.nextInt(8);
                int size = 8 + workload.nextInt(FULL - 8);
                long tag = i;
                net.schedule(workload.nextLong(2_000_000), () -> nodes[from].send(net.host(to), level, size, tag));
            }
            net.runUntilIdle(1_000_000_000L);
        }
        return trace;
    }

    @Test
    void nodeIsPolledAtTheTimeItAsksFor() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2));
        nodes[1].wakeAtNanos = 2_345;
        nodes[1].host.wakeChanged();
        nodes[1].wakeAfterPacketNanos = 100;
        nodes[0].send(network.host(1), 0, FULL, 0);
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(2_345L, 3_400L + 100), nodes[1].polls, "asked-for time, then 100 ns after the packet");
        nodes[1].wakeAfterPacketNanos = -1;
        nodes[1].wakeAtNanos = 50_000;
        nodes[0].send(network.host(1), 0, FULL, 0); // the wake time read after this packet is unchanged
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(2_345L, 3_500L, 50_000L), nodes[1].polls);
    }

    @Test
    void nodeStillDueAfterAPollIsPolledOnceANanosecondNotInALoop() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(1));
        nodes[0].clearWakeOnPoll = false;
        nodes[0].wakeAtNanos = 0;
        nodes[0].host.wakeChanged();
        network.runUntil(9);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), nodes[0].polls);
        assertFalse(network.runUntilIdle(10), "a node that is always due keeps the network busy");
    }

    @Test
    void unknownDestinationsAndInvalidLevelsAreCountedDrops() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2));
        nodes[0].host.sink().send(SimulatedNetwork.hostAddress(7, 4_000), 0, tagged(1));
        nodes[0].host.sink().send(network.host(1).address(), 8, tagged(2));
        nodes[0].host.sink().send(network.host(1).address(), -1, tagged(3));
        network.runUntilIdle(1_000_000);
        assertEquals(1, network.drops(NetworkDropReason.UNKNOWN_DESTINATION));
        assertEquals(2, network.drops(NetworkDropReason.INVALID_PRIORITY));
        assertTrue(nodes[1].arrivals.isEmpty());
    }

    @Test
    void hostDownDropsArrivalsAndIsNotPolled() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2));
        nodes[1].wakeAtNanos = 5_000;
        network.host(1).setDown(true);
        nodes[0].send(network.host(1), 0, FULL, 0);
        network.runUntilIdle(1_000_000);
        assertEquals(1, network.drops(NetworkDropReason.HOST_DOWN));
        assertTrue(nodes[1].polls.isEmpty());
        network.host(1).setDown(false);
        network.runUntilIdle(1_000_000);
        assertEquals(1, nodes[1].polls.size(), "the overdue wake-up fires once the host is up");
    }

    @Test
    void filterDropsHandPickedPackets() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2));
        network.filter((from, to, level, packet, now) -> packet.getLong(packet.readerIndex()) % 2 == 1);
        for (int i = 0; i < 6; i++) {
            nodes[0].send(network.host(1), 0, 64, i);
        }
        network.runUntilIdle(1_000_000);
        assertEquals(List.of(0L, 2L, 4L), nodes[1].tags());
        assertEquals(3, network.drops(NetworkDropReason.FILTERED));
    }

    @Test
    void closeReleasesEverythingInFlightOrQueued() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(3));
        for (int i = 0; i < 50; i++) {
            nodes[0].send(network.host(2), 0, FULL, i);
            nodes[1].send(network.host(2), 0, FULL, i);
        }
        network.runUntil(20_000);
        long delivered = network.packetsDelivered();
        assertTrue(delivered > 0 && delivered < 100);
        network.close();
        assertEquals(100 - delivered, network.drops(NetworkDropReason.NETWORK_CLOSED));
        assertThrows(IllegalStateException.class, () -> network.runUntil(30_000));
        nodes[0].send(network.host(2), 0, FULL, 0);
        assertEquals(101 - delivered, network.drops(NetworkDropReason.NETWORK_CLOSED), "sends after close are released");
        // The leak check (run after this class) proves every buffer was released.
    }

    @Test
    void closeAlsoReleasesReorderedAndDuplicatedPackets() {
        FakeNode[] nodes = start(NetworkConfig.builder().hosts(2).reorderProbability(0.5).duplicateProbability(0.5)
                .reorderMaxDelayNanos(50_000));
        for (int i = 0; i < 40; i++) {
            nodes[0].send(network.host(1), i % 8, FULL, i);
        }
        network.runUntil(10_000);
        network.close();
        assertEquals(40 + network.duplicatesInjected(),
                network.packetsDelivered() + network.drops(NetworkDropReason.NETWORK_CLOSED));
    }

    @Test
    void tasksRunAtTheirTimeAndNotInThePast() {
        start(NetworkConfig.builder().hosts(1));
        List<Long> ran = new ArrayList<>();
        network.schedule(500, () -> ran.add(network.nowNanos()));
        network.scheduleAfter(200, () -> ran.add(network.nowNanos()));
        network.runUntil(1_000);
        assertEquals(List.of(200L, 500L), ran);
        assertEquals(1_000, network.nowNanos());
        assertThrows(IllegalArgumentException.class, () -> network.schedule(999, () -> { }));
    }

    private static io.netty.buffer.ByteBuf tagged(long tag) {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(FULL);
        buf.writeLong(tag);
        buf.writeZero(FULL - 8);
        return buf;
    }
}
