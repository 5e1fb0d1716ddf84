package io.homa4j.micrometer;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BusiestPeersTest {
    private static final long SECOND = 1_000_000_000L;
    private final InetSocketAddress a = new InetSocketAddress("198.18.0.1", 1000);
    private final InetSocketAddress b = new InetSocketAddress("198.18.0.2", 1000);
    private final InetSocketAddress c = new InetSocketAddress("198.18.0.3", 1000);

    @Test
    void aWindowIsPublishedByTheFirstEventAfterItEndsWithTheBusiestFirst() {
        BusiestPeers peers = new BusiestPeers(2, 10 * SECOND, 0);
        peers.onCallCompleted(a, 100, 100, 2_000_000, 1 * SECOND);        // a: 200 bytes
        peers.onCallCompleted(b, 10_000, 10_000, 4_000_000, 2 * SECOND);  // b: 20,000 bytes
        peers.onCallCompleted(b, 10_000, 10_000, 6_000_000, 3 * SECOND);
        peers.onCallFailed(b, 500, 4 * SECOND);
        peers.onRequestServed(c, 1_000, 1_000, 5 * SECOND);                // c: 2,000 bytes
        assertTrue(peers.published().isEmpty(), "the first window is still open");

        peers.onCallCompleted(a, 1, 1, 1, 10 * SECOND);                    // closes [0, 10 s)
        List<BusiestPeers.PeerFigures> top = peers.published();
        assertEquals(2, top.size(), "only the two busiest");
        assertEquals(b, top.get(0).peer());
        assertEquals(c, top.get(1).peer());
        BusiestPeers.PeerFigures fb = top.get(0);
        assertEquals(0.3, fb.callsPerSecond(), 1e-9);
        assertEquals(0.1, fb.failuresPerSecond(), 1e-9);
        assertEquals(2_050, fb.bytesSentPerSecond(), 1e-9);
        assertEquals(2_000, fb.bytesReceivedPerSecond(), 1e-9);
        assertEquals(0.005, fb.meanRttSeconds(), 1e-12, "failed calls do not count towards the RTT");
        assertEquals(100, top.get(1).bytesReceivedPerSecond(), 1e-9, "a served request's bytes came in");
        assertEquals(10 * SECOND, peers.publishedAtNanos());
    }

    @Test
    void theNextWindowStartsEmpty() {
        BusiestPeers peers = new BusiestPeers(5, SECOND, 0);
        peers.onCallCompleted(a, 100, 100, 1, 0);
        peers.onCallCompleted(b, 100, 100, 1, SECOND);      // closes the first window: a only
        assertEquals(List.of(a), peers.published().stream().map(BusiestPeers.PeerFigures::peer).toList());
        peers.onCallCompleted(c, 100, 100, 1, 2 * SECOND);  // closes the second: b only
        assertEquals(List.of(b), peers.published().stream().map(BusiestPeers.PeerFigures::peer).toList());
    }

    @Test
    void aPeerWithOnlyFailuresHasNoMeanRtt() {
        BusiestPeers peers = new BusiestPeers(5, SECOND, 0);
        peers.onCallFailed(a, 100, 0);
        peers.onCallFailed(b, 1, SECOND);
        assertTrue(Double.isNaN(peers.published().get(0).meanRttSeconds()));
    }
}
