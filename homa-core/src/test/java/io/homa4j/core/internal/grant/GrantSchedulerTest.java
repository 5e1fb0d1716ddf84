package io.homa4j.core.internal.grant;

import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.priority.ScheduledPriorities;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GrantSchedulerTest {
    private static final int PACKET = 1_432;
    private static final InetSocketAddress BUSY_PEER = new InetSocketAddress("198.18.0.1", 4000);
    private static final InetSocketAddress OTHER_PEER = new InetSocketAddress("198.18.0.2", 4000);
    private static final InetSocketAddress THIRD_PEER = new InetSocketAddress("198.18.0.3", 4000);
    private static final PacketEncoder SENDER = new PacketEncoder(new UnpooledByteBufAllocator(false, true));
    private static final int UNSCHEDULED = 20_000;

    private record FakeRpc(InetSocketAddress peerAddress) implements MessageOwner {
        @Override public long wireId() { return 2; }
        @Override public long takePiggybackAck() { return 0; }
        @Override public int cutoffsVersion() { return 0; }
        @Override public void onAllSent(long nowNanos) { }
        @Override public io.homa4j.core.internal.timer.RttEstimator peerRtt() {
            return new io.homa4j.core.internal.timer.RttEstimator();
        }
    }

    /** Messages that got a grant in one scheduling pass over three long messages of one peer and one of another. */
    private static Set<IncomingMessage> grantedInOnePass(int maxPerPeer, IncomingMessage[] messages) {
        GrantScheduler scheduler = new GrantScheduler(8, maxPerPeer, 1_000_000, 0, PACKET, 10 * PACKET,
                new ScheduledPriorities(3), new Metrics());
        messages[0] = new IncomingMessage(new FakeRpc(BUSY_PEER), 400_000, false, 10_000, 0, -1);
        messages[1] = new IncomingMessage(new FakeRpc(BUSY_PEER), 410_000, false, 10_000, 1, -1);
        messages[2] = new IncomingMessage(new FakeRpc(BUSY_PEER), 420_000, false, 10_000, 2, -1);
        messages[3] = new IncomingMessage(new FakeRpc(OTHER_PEER), 430_000, false, 10_000, 3, -1);
        for (IncomingMessage m : messages) {
            scheduler.added(m);
        }
        Set<IncomingMessage> granted = new LinkedHashSet<>();
        scheduler.schedule((m, offset, priority) -> granted.add(m));
        return granted;
    }

    @Test
    void grantsOnlyTheShortestMessageOfEachPeerByDefault() {
        IncomingMessage[] m = new IncomingMessage[4];
        Set<IncomingMessage> granted = grantedInOnePass(1, m);
        assertEquals(Set.of(m[0], m[3]), granted);
        // with two candidates the window is a third of the incoming budget each
        assertEquals(1_000_000 / 3, m[0].granted());
    }

    @Test
    void aLargerPerPeerLimitGrantsMoreMessagesOfOnePeer() {
        IncomingMessage[] m = new IncomingMessage[4];
        Set<IncomingMessage> twoPerPeer = grantedInOnePass(2, m);
        assertEquals(Set.of(m[0], m[1], m[3]), twoPerPeer);
        IncomingMessage[] all = new IncomingMessage[4];
        Set<IncomingMessage> unlimited = grantedInOnePass(8, all);
        assertEquals(Set.of(all[0], all[1], all[2], all[3]), unlimited);
    }

    /** Eight slots, one message per peer, 1 MB of incoming budget; {@code count} long messages of BUSY_PEER wait. */
    private static GrantScheduler busyPeerScheduler(int count) {
        GrantScheduler scheduler = new GrantScheduler(8, 1, 1_000_000, 0, PACKET, 10 * PACKET,
                new ScheduledPriorities(3), new Metrics());
        for (int i = 0; i < count; i++) {
            scheduler.added(new IncomingMessage(new FakeRpc(BUSY_PEER), 400_000 + i, false, 10_000, i, -1));
        }
        return scheduler;
    }

    @Test
    void aPeerWhoseMessagesLeftAndCameBackIsAskedAgain() {
        GrantScheduler scheduler = busyPeerScheduler(50);
        // A short message of the other peer: fully granted in one pass, so it leaves the active set then.
        IncomingMessage shortOne = new IncomingMessage(new FakeRpc(OTHER_PEER), 20_000, false, 10_000, 50, -1);
        scheduler.added(shortOne);
        Set<IncomingMessage> first = pass(scheduler);
        assertEquals(20_000, shortOne.granted());
        assertEquals(2, first.size(), "the busy peer's shortest and the short one");
        // The other peer comes back with the longest message of all, last in SRPT order behind 49 of the busy
        // peer's: it is still found.
        IncomingMessage comeback = new IncomingMessage(new FakeRpc(OTHER_PEER), 900_000, false, 10_000, 51, -1);
        scheduler.added(comeback);
        assertEquals(Set.of(comeback), pass(scheduler), "the busy peer's front message still has its window");
        scheduler.removed(comeback);
        scheduler.removed(shortOne);
    }

    @Test
    void aNewPeerRankedLastIsPickedOnceTheOthersHaveTheirPicks() {
        GrantScheduler scheduler = busyPeerScheduler(20);
        scheduler.added(new IncomingMessage(new FakeRpc(OTHER_PEER), 410_000, false, 10_000, 20, -1));
        assertEquals(2, pass(scheduler).size(), "one message of each of the two peers");
        // Every peer has its pick, so the walk stopped at the second; a third peer's message, ranked behind all
        // 21, must still be found.
        IncomingMessage third = new IncomingMessage(new FakeRpc(THIRD_PEER), 900_000, false, 10_000, 21, -1);
        scheduler.added(third);
        assertTrue(pass(scheduler).contains(third), "the third peer's message got a grant");
    }

    /** Two SRPT slots, one message per peer, no FIFO share; {@code messages} already arrived. */
    private static GrantScheduler twoSlotScheduler(long maxIncoming, IncomingMessage... messages) {
        GrantScheduler scheduler = new GrantScheduler(2, 1, maxIncoming, 0, PACKET, 10 * PACKET,
                new ScheduledPriorities(3), new Metrics());
        for (IncomingMessage m : messages) {
            scheduler.added(m);
        }
        return scheduler;
    }

    private static IncomingMessage message(InetSocketAddress peer, int length, long sequence) {
        return new IncomingMessage(new FakeRpc(peer), length, false, UNSCHEDULED, sequence, -1);
    }

    private static Set<IncomingMessage> pass(GrantScheduler scheduler) {
        Set<IncomingMessage> granted = new LinkedHashSet<>();
        scheduler.schedule((m, offset, priority) -> granted.add(m));
        return granted;
    }

    /** Delivers bytes [0, length) of {@code m} in one DATA packet, the way the engine does, and frees its buffer. */
    private static void receive(GrantScheduler scheduler, IncomingMessage m, int length) {
        try {
            deliver(scheduler, m, 0, length);
        } finally {
            m.release();
        }
    }

    /** Delivers bytes [offset, offset + length) of {@code m} in one DATA packet, the way the engine does. */
    private static void deliver(GrantScheduler scheduler, IncomingMessage m, int offset, int length) {
        ByteBuf payload = Unpooled.wrappedBuffer(new byte[offset + length]);
        ByteBuf packet = SENDER.data(2, m.length(), offset, m.granted(), 0, 0, 0, payload, length);
        try {
            scheduler.beforeUpdate(m, length);
            long growth = m.growthFor(offset, length);
            assertTrue(growth >= 0, "delivered in order, never too far ahead");
            assertEquals(length, m.accept(new DataHeader().wrap(packet, packet.readerIndex()), packet,
                    packet.readerIndex() + DataHeader.LENGTH, growth));
            scheduler.afterUpdate(m);
        } finally {
            packet.release();
        }
    }

    @Test
    void incrementsAreAQuarterWindowAndAtLeastTwoPacketsOrHalfTheWindow() {
        assertEquals(PACKET, GrantScheduler.minIncrement(PACKET, PACKET));         // window of one packet
        assertEquals(PACKET, GrantScheduler.minIncrement(2 * PACKET, PACKET));
        assertEquals(3 * PACKET / 2, GrantScheduler.minIncrement(3 * PACKET, PACKET)); // half the window
        assertEquals(2 * PACKET, GrantScheduler.minIncrement(4 * PACKET, PACKET));
        assertEquals(2 * PACKET, GrantScheduler.minIncrement(8 * PACKET, PACKET));
        assertEquals(5 * PACKET, GrantScheduler.minIncrement(20 * PACKET, PACKET)); // a quarter once that is more
    }

    @Test
    void aSmallWindowIsRefilledEveryTwoPacketsNotEveryPacket() {
        // one message, incoming budget 8 packets: window 4 packets, unscheduled one packet
        GrantScheduler scheduler = new GrantScheduler(8, 1, 8L * PACKET, 0, PACKET, PACKET,
                new ScheduledPriorities(3), new Metrics());
        IncomingMessage m = new IncomingMessage(new FakeRpc(BUSY_PEER), 100 * PACKET, false, PACKET, 0, -1);
        scheduler.added(m);
        assertEquals(Set.of(m), pass(scheduler));
        assertEquals(4 * PACKET, m.granted());
        int grants = 0;
        for (int packet = 0; packet < 20; packet++) {
            deliver(scheduler, m, packet * PACKET, PACKET);
            grants += pass(scheduler).size();
            long inFlight = m.granted() - (long) (packet + 1) * PACKET;
            assertTrue(inFlight >= 2 * PACKET, "packet " + packet + ": " + inFlight + " B granted ahead");
        }
        assertEquals(10, grants, "one GRANT per two DATA packets");
        m.release();
    }

    @Test
    void aMessageThatOvertakesTheLastCandidateIsGrantedInTheNextPass() {
        // No room in the first pass: the unscheduled bytes fill the incoming budget. Candidates: a, then b.
        IncomingMessage a = message(BUSY_PEER, 200_000, 0);
        IncomingMessage b = message(OTHER_PEER, 300_000, 1);
        IncomingMessage c = message(THIRD_PEER, 310_000, 2);
        GrantScheduler scheduler = twoSlotScheduler(3 * UNSCHEDULED, a, b, c);
        assertTrue(pass(scheduler).isEmpty());
        // c's unscheduled bytes arrive: it now has fewer bytes left than b, and room opened for it
        receive(scheduler, c, UNSCHEDULED);
        assertEquals(Set.of(c), pass(scheduler));
    }

    @Test
    void aNewShorterMessageDisplacesTheLastCandidate() {
        IncomingMessage a = message(BUSY_PEER, 200_000, 0);
        GrantScheduler scheduler = twoSlotScheduler(2 * UNSCHEDULED, a, message(OTHER_PEER, 300_000, 1));
        assertTrue(pass(scheduler).isEmpty());
        IncomingMessage d = new IncomingMessage(new FakeRpc(THIRD_PEER), 250_000, false, 0, 2, -1);
        scheduler.added(d);
        receive(scheduler, a, UNSCHEDULED); // room for grants; a stays in front
        assertEquals(Set.of(a, d), pass(scheduler));
    }

    @Test
    void aCandidateThatOvertakesAnotherIsGrantedAtTheBetterRanksLevel() {
        IncomingMessage a = message(BUSY_PEER, 200_000, 0);
        IncomingMessage b = message(OTHER_PEER, 230_000, 1);
        GrantScheduler scheduler = twoSlotScheduler(6 * UNSCHEDULED, a, b);
        assertEquals(Set.of(a, b), pass(scheduler));
        receive(scheduler, b, b.granted()); // b now has fewer bytes left than a
        Map<IncomingMessage, Integer> levels = new HashMap<>();
        scheduler.schedule((m, offset, priority) -> levels.put(m, priority));
        assertEquals(Map.of(b, 1), levels); // rank 0 of two: level 1; a has nothing new to be granted
    }
}
