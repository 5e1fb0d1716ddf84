package io.homa4j.core.grant;

import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.Metrics;
import io.homa4j.core.priority.ScheduledPriorities;
import io.homa4j.core.rpc.Rpc;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.LinkedHashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class GrantSchedulerTest {
    private static final int PACKET = 1_432;
    private static final InetSocketAddress BUSY_PEER = new InetSocketAddress("198.18.0.1", 4000);
    private static final InetSocketAddress OTHER_PEER = new InetSocketAddress("198.18.0.2", 4000);

    private record FakeRpc(InetSocketAddress peerAddress) implements Rpc {
        @Override public long wireId() { return 2; }
        @Override public long takePiggybackAck() { return 0; }
        @Override public int cutoffsVersion() { return 0; }
        @Override public void onAllSent(long nowNanos) { }
    }

    /** Messages that got a grant in one scheduling pass over three long messages of one peer and one of another. */
    private static Set<IncomingMessage> grantedInOnePass(int maxPerPeer, IncomingMessage[] messages) {
        GrantScheduler scheduler = new GrantScheduler(8, maxPerPeer, 1_000_000, 0, PACKET, 10 * PACKET,
                new ScheduledPriorities(3), new Metrics());
        messages[0] = new IncomingMessage(new FakeRpc(BUSY_PEER), 400_000, false, 10_000, 0);
        messages[1] = new IncomingMessage(new FakeRpc(BUSY_PEER), 410_000, false, 10_000, 1);
        messages[2] = new IncomingMessage(new FakeRpc(BUSY_PEER), 420_000, false, 10_000, 2);
        messages[3] = new IncomingMessage(new FakeRpc(OTHER_PEER), 430_000, false, 10_000, 3);
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

    @Test
    void aPeerWhoseMessagesLeftAndCameBackIsAskedAgain() {
        GrantScheduler scheduler = new GrantScheduler(8, 1, 1_000_000, 0, PACKET, 10 * PACKET,
                new ScheduledPriorities(3), new Metrics());
        for (int i = 0; i < 50; i++) {
            scheduler.added(new IncomingMessage(new FakeRpc(BUSY_PEER), 400_000 + i, false, 10_000, i));
        }
        // A short message of the other peer: fully granted in one pass, so it leaves the active set then.
        IncomingMessage shortOne = new IncomingMessage(new FakeRpc(OTHER_PEER), 20_000, false, 10_000, 50);
        scheduler.added(shortOne);
        Set<IncomingMessage> first = new LinkedHashSet<>();
        scheduler.schedule((m, offset, priority) -> first.add(m));
        assertEquals(20_000, shortOne.granted());
        assertEquals(2, first.size(), "the busy peer's shortest and the short one");
        // The other peer comes back with the longest message of all, last in SRPT order behind 49 of the busy
        // peer's: it is still found.
        IncomingMessage comeback = new IncomingMessage(new FakeRpc(OTHER_PEER), 900_000, false, 10_000, 51);
        scheduler.added(comeback);
        Set<IncomingMessage> second = new LinkedHashSet<>();
        scheduler.schedule((m, offset, priority) -> second.add(m));
        assertEquals(Set.of(comeback), second, "the busy peer's front message still has its window");
        scheduler.removed(comeback);
        scheduler.removed(shortOne);
    }
}
