package io.homa4j.core.peer;

import io.homa4j.core.priority.UnscheduledCutoffs;

import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * All known peers. Bounded: when it grows past {@code maxIdlePeers}, the least recently used peers without
 * live RPCs or pending acks are forgotten (they only cost a CUTOFFS exchange when they come back). Engine
 * thread only.
 */
public final class PeerTable {
    private final LinkedHashMap<InetSocketAddress, Peer> peers = new LinkedHashMap<>(64, 0.75f, true);
    private final int maxIdlePeers;
    private final UnscheduledCutoffs initialCutoffs;

    /**
     * @param initialCutoffs the cutoffs to use towards a peer until it sends its own
     */
    public PeerTable(int maxIdlePeers, UnscheduledCutoffs initialCutoffs) {
        this.maxIdlePeers = maxIdlePeers;
        this.initialCutoffs = initialCutoffs;
    }

    /** The peer for {@code address}, created if needed. */
    public Peer getOrCreate(InetSocketAddress address) {
        Peer p = peers.get(address);
        if (p == null) {
            evictIdleIfFull();
            p = new Peer(address, initialCutoffs);
            peers.put(address, p);
        }
        return p;
    }

    /** The peer for {@code address}, or null. */
    public Peer get(InetSocketAddress address) {
        return peers.get(address);
    }

    public int size() {
        return peers.size();
    }

    public Iterable<Peer> all() {
        return peers.values();
    }

    public void clear() {
        peers.clear();
    }

    private void evictIdleIfFull() {
        if (peers.size() < maxIdlePeers) {
            return;
        }
        Iterator<Map.Entry<InetSocketAddress, Peer>> it = peers.entrySet().iterator();
        while (it.hasNext() && peers.size() >= maxIdlePeers) {
            if (it.next().getValue().idle()) {
                it.remove();
            }
        }
    }
}
