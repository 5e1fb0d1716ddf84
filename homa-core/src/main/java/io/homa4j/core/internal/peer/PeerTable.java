package io.homa4j.core.internal.peer;

import io.homa4j.core.internal.priority.UnscheduledCutoffs;

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
     * The peer found by the last lookup and the address object it was looked up with. A packet's sender is
     * looked up once per packet, a run of packets often comes from one sender, and the access-ordered map's
     * lookup hashes and compares the address: a repeat of the last lookup with the same object is answered
     * here. Skipping the map changes no order: the last key looked up is already the most recently used.
     */
    private InetSocketAddress lastAddress;
    private Peer lastPeer;

    /**
     * @param initialCutoffs the cutoffs to use towards a peer until it sends its own
     */
    public PeerTable(int maxIdlePeers, UnscheduledCutoffs initialCutoffs) {
        this.maxIdlePeers = maxIdlePeers;
        this.initialCutoffs = initialCutoffs;
    }

    /** The peer for {@code address}, created if needed. */
    public Peer getOrCreate(InetSocketAddress address) {
        Peer p = get(address);
        if (p == null) {
            evictIdleIfFull();
            p = new Peer(address, initialCutoffs);
            peers.put(address, p);
            remember(address, p);
        }
        return p;
    }

    /** The peer for {@code address}, or null. */
    public Peer get(InetSocketAddress address) {
        if (address == lastAddress && address != null) {
            return lastPeer;
        }
        Peer p = peers.get(address);
        if (p != null) {
            remember(address, p);
        }
        return p;
    }

    private void remember(InetSocketAddress address, Peer p) {
        lastAddress = address;
        lastPeer = p;
    }

    public int size() {
        return peers.size();
    }

    public Iterable<Peer> all() {
        return peers.values();
    }

    public void clear() {
        peers.clear();
        remember(null, null);
    }

    private void evictIdleIfFull() {
        if (peers.size() < maxIdlePeers) {
            return;
        }
        remember(null, null); // it may be evicted
        Iterator<Map.Entry<InetSocketAddress, Peer>> it = peers.entrySet().iterator();
        while (it.hasNext() && peers.size() >= maxIdlePeers) {
            if (it.next().getValue().idle()) {
                it.remove();
            }
        }
    }
}
