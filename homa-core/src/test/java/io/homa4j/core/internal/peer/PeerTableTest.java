package io.homa4j.core.internal.peer;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class PeerTableTest {
    private static final InetSocketAddress A = new InetSocketAddress("198.18.0.1", 4000);
    private static final InetSocketAddress B = new InetSocketAddress("198.18.0.2", 4000);
    private static final InetSocketAddress C = new InetSocketAddress("198.18.0.3", 4000);

    private static PeerTable table(int maxIdlePeers) {
        return new PeerTable(maxIdlePeers, UnscheduledCutoffs.fromConfig(HomaConfig.defaults(), 0));
    }

    @Test
    void repeatedLookupsKeepTheLeastRecentlyUsedOrderForEviction() {
        PeerTable peers = table(2);
        Peer a = peers.getOrCreate(A);
        peers.getOrCreate(B);
        assertSame(a, peers.get(A)); // A becomes the most recently used
        assertSame(a, peers.get(A)); // the same lookup again
        peers.getOrCreate(C); // full: the least recently used idle peer, B, goes
        assertNull(peers.get(B));
        assertSame(a, peers.get(A));
        assertNotNull(peers.get(C));
    }

    @Test
    void anEqualAddressObjectFindsTheSamePeer() {
        PeerTable peers = table(8);
        Peer a = peers.getOrCreate(A);
        assertSame(a, peers.get(new InetSocketAddress("198.18.0.1", 4000)));
        assertSame(a, peers.getOrCreate(new InetSocketAddress("198.18.0.1", 4000)));
    }

    @Test
    void aForgottenPeerIsNotFoundAgain() {
        PeerTable peers = table(8);
        peers.getOrCreate(A);
        peers.get(A);
        peers.clear();
        assertNull(peers.get(A));
        Peer fresh = peers.getOrCreate(A);
        assertSame(fresh, peers.get(A));
    }
}
