package io.homa4j.core;

import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Grants, overcommit, SRPT on the sender, the pacer, priorities: the scheduling half of Homa. */
class SchedulingTest {
    private final TestNet net = new TestNet();

    @AfterEach
    void close() {
        net.close();
    }

    @Test
    void scheduledBytesOnlyFlowAsGrantsArrive() {
        HomaConfig config = HomaConfig.defaults();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        long id = client.call(server, 300_000, 1);
        net.runUntil(() -> client.done(id), 1_000_000_000L);
        assertTrue(client.responses.containsKey(id));
        // Every request byte past the unscheduled ones was covered by a grant sent at least one latency earlier.
        List<TestNet.Sent> grants = new ArrayList<>();
        for (TestNet.Sent s : net.sent) {
            if (s.type() == PacketType.GRANT && s.from().equals(server.address)) {
                grants.add(s);
            }
            if (s.type() == PacketType.DATA && s.from().equals(client.address)) {
                int start = s.offset();
                if (start < config.unscheduledBytes()) {
                    continue;
                }
                long covering = grants.stream()
                        .filter(g -> g.offset() > start && g.atNanos() + net.latencyNanos <= s.atNanos()).count();
                assertTrue(covering > 0, () -> "DATA starting at " + start + " sent without a grant covering it");
            }
        }
        // Grants are coalesced: each moves the offset by at least a packet (the last one may just finish the
        // message), and there are fewer of them than scheduled packets.
        int payload = DataHeader.maxPayload(config.maxUdpPayload());
        int previous = config.unscheduledBytes();
        for (TestNet.Sent g : grants) {
            if (g.rpcId() == (id ^ 1)) {
                assertTrue(g.offset() - previous >= payload || g.offset() == 300_000,
                        "grant step " + (g.offset() - previous));
                previous = g.offset();
            }
        }
        assertEquals(300_000, previous, "granted to the end");
        long scheduledPackets = (300_000 - config.unscheduledBytes() + payload - 1) / payload;
        assertTrue(grants.size() < scheduledPackets, grants.size() + " grants for " + scheduledPackets + " packets");
        MetricsSnapshot m = server.engine.metrics();
        assertTrue(m.grantedBytesOutstandingHighWater() <= config.maxIncomingBytes());
    }

    @Test
    void grantsEndingInsideAPacketStillGetFullPackets() {
        // 1,000 B of unscheduled bytes and grants in steps of a quarter window: neither falls on a packet boundary.
        HomaConfig config = HomaConfig.builder().unscheduledBytes(1_000).maxIncomingBytes(9_000).build();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        int length = 100_000;
        long id = client.call(server, length, 1);
        net.runUntil(() -> client.done(id), 1_000_000_000L);
        assertTrue(client.responses.containsKey(id));
        int payload = DataHeader.maxPayload(config.maxUdpPayload());
        List<TestNet.Sent> request = new ArrayList<>();
        for (TestNet.Sent s : net.sent(PacketType.DATA)) {
            if (s.from().equals(client.address) && s.messageLength() == length) {
                request.add(s);
            }
        }
        assertEquals((length + payload - 1) / payload, request.size(), "one packet per full payload, no fragments");
        int expectedOffset = 0;
        for (TestNet.Sent s : request) {
            assertEquals(expectedOffset, s.offset());
            assertEquals(Math.min(payload, length - s.offset()), s.length(), "packet at " + s.offset());
            expectedOffset += s.length();
        }
    }

    @Test
    void aRequestHeldBackAfterPartialGrantsGetsBusyNotRepeatedGrants() {
        // 100 Mbit/s: the shorter request takes ~30 ms, several RESEND timeouts of the held-back longer one.
        HomaConfig config = HomaConfig.builder().linkMbps(100).rttMicros(100).maxOvercommit(1)
                .fifoGrantFraction(0).build();
        TestNet.Node server = net.node("server", config);
        TestNet.Node longer = net.node("longer", config);
        TestNet.Node shorter = net.node("shorter", config);
        long held = longer.call(server, 500_000, 1);
        net.runFor(2_000_000); // the longer request is granted a while before the shorter one shows up
        long preferred = shorter.call(server, 400_000, 2);
        net.runUntil(() -> longer.done(held) && shorter.done(preferred), 2_000_000_000L);
        assertTrue(longer.responses.containsKey(held) && shorter.responses.containsKey(preferred));

        List<Integer> grantOffsets = new ArrayList<>();
        int resends = 0;
        int busies = 0;
        for (TestNet.Sent s : net.sent) {
            boolean aboutHeldRequest = s.rpcId() == (held ^ 1) || s.rpcId() == held;
            if (s.type() == PacketType.GRANT && s.from().equals(server.address) && s.to().equals(longer.address)
                    && aboutHeldRequest) {
                grantOffsets.add(s.offset());
            } else if (s.type() == PacketType.RESEND && s.from().equals(longer.address)) {
                resends++;
            } else if (s.type() == PacketType.BUSY && s.from().equals(server.address)
                    && s.to().equals(longer.address)) {
                busies++;
            }
        }
        assertTrue(resends > 0, "the held request's client never went silent long enough to ask");
        assertTrue(busies >= resends, busies + " BUSY answers to " + resends + " RESENDs");
        for (int i = 1; i < grantOffsets.size(); i++) {
            assertTrue(grantOffsets.get(i) > grantOffsets.get(i - 1), "grant repeated: " + grantOffsets);
        }
    }

    @Test
    void grantsCarryScheduledPrioritiesBelowTheUnscheduledOnes() {
        HomaConfig config = HomaConfig.defaults();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        long id = client.call(server, 200_000, 2);
        net.runUntil(() -> client.done(id), 1_000_000_000L);
        for (TestNet.Sent s : net.sent(PacketType.DATA)) {
            if (s.offset() >= config.unscheduledBytes()) {
                assertTrue(s.priority() <= 3, () -> "scheduled DATA at level " + s.priority());
            } else if (s.messageLength() == 200_000) {
                assertEquals(4, s.priority(), "unscheduled bytes of a long message use the lowest unscheduled level");
            }
        }
        for (TestNet.Sent s : net.sent(PacketType.GRANT)) {
            assertEquals(7, s.priority(), "control packets go at the top level");
        }
    }

    @Test
    void receiverNeverGrantsMoreThanMaxOvercommitMessagesAtOnce() {
        HomaConfig config = HomaConfig.builder().maxOvercommit(2).build();
        TestNet.Node server = net.node("server", config);
        List<TestNet.Node> clients = new ArrayList<>();
        List<long[]> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            TestNet.Node c = net.node("client" + i, config);
            clients.add(c);
            calls.add(new long[] {c.call(server, 400_000 + i * 10_000, i)});
        }
        net.runUntil(() -> {
            for (int i = 0; i < clients.size(); i++) {
                if (!clients.get(i).done(calls.get(i)[0])) {
                    return false;
                }
            }
            return true;
        }, 5_000_000_000L);
        for (int i = 0; i < clients.size(); i++) {
            assertTrue(clients.get(i).responses.containsKey(calls.get(i)[0]));
        }
        MetricsSnapshot m = server.engine.metrics();
        assertEquals(2, m.grantedMessagesHighWater(), "overcommit used fully but never exceeded");
        assertTrue(m.grantedBytesOutstandingHighWater() <= config.maxIncomingBytes());
    }

    @Test
    void receiverGrantsTheShortestMessageFirst() {
        HomaConfig config = HomaConfig.builder().maxOvercommit(1).build();
        TestNet.Node server = net.node("server", config);
        TestNet.Node a = net.node("a", config);
        TestNet.Node b = net.node("b", config);
        server.handler = (h, c, req) -> {
            req.release();
            return io.netty.buffer.Unpooled.buffer(0);
        };
        long longCall = a.call(server, 2_000_000, 1);
        net.runFor(100_000);
        long shortCall = b.call(server, 200_000, 2);
        net.runUntil(() -> a.done(longCall) && b.done(shortCall), 5_000_000_000L);
        // the short request overtakes the long one at the receiver
        long shortDone = doneAt(b, shortCall);
        long longDone = doneAt(a, longCall);
        assertTrue(shortDone < longDone, "short message finished " + shortDone + " vs long " + longDone);
    }

    private long doneAt(TestNet.Node n, long id) {
        // completion time: the first packet the client sent after its response was complete is not tracked;
        // use the last response DATA delivered to it instead
        long last = 0;
        for (TestNet.Sent s : net.sent(PacketType.DATA)) {
            if (s.to().equals(n.address) && s.rpcId() == (id ^ 1)) {
                last = Math.max(last, s.atNanos());
            }
        }
        return last;
    }

    @Test
    void senderSendsTheShorterOfTwoMessagesFirst() {
        HomaConfig config = HomaConfig.defaults();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        TestNet.Node server2 = net.node("server2", config);
        long longCall = client.call(server, 1_000_000, 1);
        long shortCall = client.call(server2, 100_000, 2);
        net.runUntil(() -> client.done(longCall) && client.done(shortCall), 5_000_000_000L);
        assertEquals(List.of(shortCall, longCall), client.completionOrder);
        // while both had sendable bytes, the sender picked the short one except for the FIFO share
        long lastShortData = net.sent(PacketType.DATA).stream()
                .filter(s -> s.from().equals(client.address) && s.rpcId() == shortCall && !isRetransmit(s))
                .mapToLong(TestNet.Sent::atNanos).max().orElseThrow();
        long longDataBefore = net.sent(PacketType.DATA).stream()
                .filter(s -> s.from().equals(client.address) && s.rpcId() == longCall && s.atNanos() < lastShortData
                        && s.offset() >= config.unscheduledBytes())
                .count();
        long shortPackets = 100_000 / DataHeader.maxPayload(config.maxUdpPayload());
        assertTrue(longDataBefore <= shortPackets / 4, "long message got " + longDataBefore
                + " scheduled packets while the short one was pending");
    }

    private static boolean isRetransmit(TestNet.Sent s) {
        return (s.flags() & io.homa4j.core.wire.DataHeader.FLAG_RETRANSMIT) != 0;
    }

    @Test
    void pacerKeepsTheOwnQueueBoundedAndStillSendsAtLinkRate() {
        HomaConfig config = HomaConfig.builder().linkMbps(1_000).build();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        long start = net.now();
        long id = client.call(server, 500_000, 3);
        net.runUntil(() -> client.done(id), 10_000_000_000L);
        assertTrue(client.engine.pacerMaxQueueSeenNanos() <= config.pacerMaxQueueNanos()
                + 2 * (long) (config.mtu() * 8_000.0 / config.linkMbps()), "own queue bounded");
        // 500 KB each way at 1 Gb/s is at least 8 ms of link time: the pacer really paced
        long elapsed = net.now() - start;
        assertTrue(elapsed >= 8_000_000, "finished in " + elapsed + " ns: faster than the link");
        assertTrue(elapsed < 20_000_000, "finished in " + elapsed + " ns: pacer too slow");
    }

    @Test
    void smallMessagesAreNeverDeferredByThePacer() {
        HomaConfig config = HomaConfig.builder().linkMbps(1_000).build();
        TestNet.Node client = net.node("client", config);
        TestNet.Node server = net.node("server", config);
        TestNet.Node server2 = net.node("server2", config);
        client.call(server, 2_000_000, 1);
        long t0 = net.now();
        long small = client.call(server2, 500, 2);
        TestNet.Sent first = net.sent(PacketType.DATA).stream().filter(s -> s.rpcId() == small).findFirst()
                .orElseThrow(() -> new AssertionError("the small request waited behind the pacer"));
        assertEquals(t0, first.atNanos());
        net.runUntil(() -> client.done(small), 1_000_000_000L);
    }

    @Test
    void receiverPushesItsCutoffsAndTheSenderUsesThem() {
        HomaConfig serverConfig = HomaConfig.builder().unscheduledCutoffs().build(); // all unscheduled at 7
        TestNet.Node client = net.node("client", HomaConfig.defaults());
        TestNet.Node server = net.node("server", serverConfig);
        long first = client.call(server, 50_000, 1);
        net.runUntil(() -> client.done(first), 1_000_000_000L);
        assertTrue(net.sent(PacketType.CUTOFFS).stream().anyMatch(s -> s.from().equals(server.address)));
        assertEquals(1, client.engine.metrics().cutoffsUpdates());
        long second = client.call(server, 50_000, 2);
        net.runUntil(() -> client.done(second), 1_000_000_000L);
        TestNet.Sent data = net.sent(PacketType.DATA).stream()
                .filter(s -> s.rpcId() == second && s.offset() == 0).findFirst().orElseThrow();
        assertEquals(7, data.priority(), "second call uses the server's cutoffs");
        TestNet.Sent firstData = net.sent(PacketType.DATA).stream()
                .filter(s -> s.rpcId() == first && s.offset() == 0).findFirst().orElseThrow();
        assertEquals(4, firstData.priority(), "first call used the client's defaults");
    }

    @Test
    void aResponseHeldBackByTheReceiversGrantsOutlivesTheAbortTimeout() {
        // At 200 Mb/s the first response (3 MB) takes ~120 ms; with one grant slot the client holds the second
        // response back all that time, longer than abortTicks: its BUSY keepalives keep that server waiting.
        HomaConfig config = HomaConfig.builder().linkMbps(200).maxOvercommit(1).abortTicks(100).build();
        io.netty.buffer.ByteBufAllocator untracked = new io.netty.buffer.UnpooledByteBufAllocator(false, true);
        TestNet.Node client = net.node("client", config, untracked);
        TestNet.Node first = net.node("first", config, untracked);
        TestNet.Node second = net.node("second", config, untracked);
        first.handler = (h, c, req) -> {
            req.release();
            return TestNet.payload(3_000_000, 1);
        };
        second.handler = (h, c, req) -> {
            req.release();
            return TestNet.payload(4_000_000, 2);
        };
        long a = client.call(first, 10, 1);
        long b = client.call(second, 10, 2);
        long start = net.now();
        net.runUntil(() -> client.done(a) && client.done(b), 2_000_000_000L);
        assertTrue(client.responses.containsKey(a), () -> "first failed: " + client.failures.get(a));
        assertTrue(client.responses.containsKey(b), () -> "second failed: " + client.failures.get(b));
        assertEquals(List.of(a, b), client.completionOrder);
        assertTrue(net.now() - start > config.abortTicks() * config.tickNanos(), "the hold outlasted abortTicks");
        assertTrue(net.sent(PacketType.BUSY).stream().anyMatch(s -> s.from().equals(client.address)
                && s.to().equals(second.address)), "the client kept the held server waiting");
        assertEquals(0, second.engine.metrics().serverExpired());
    }
}
