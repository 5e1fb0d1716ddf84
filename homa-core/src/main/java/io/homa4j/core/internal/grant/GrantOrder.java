package io.homa4j.core.internal.grant;

import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.order.FirstCachingSet;

import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The messages waiting for grants, in grant order, and the candidates picked from its front: the first
 * {@code maxPicks} messages in order, taking at most {@code maxPerPeer} of any one peer.
 *
 * <p>Picking walks the order past every message of a peer already picked, and the scheduler asks for the picks
 * after every packet, while most packets change nothing the walk saw. So the picks are kept until a change could
 * alter them: a message entering or leaving the part of the order the last walk visited, or a message other than
 * a pick moving within it. A pick whose key drops keeps its place among the picks, or moves forward among them,
 * but the set of picks stays the same: it still comes before the other messages of its peer, and the messages
 * skipped for their peer's sake stay behind that peer's picks.
 *
 * <p>Keys may change only between {@link #beginUpdate} and {@link #endUpdate}, and only downwards (receiving bytes
 * lowers the SRPT key); the front message is then left in place, as it stays in front. Engine thread only.
 */
final class GrantOrder {
    /** Its first message is asked for on every packet (the front stays in place while its key drops). */
    private final FirstCachingSet<IncomingMessage> order;
    /** Whether a key change can move a message (SRPT); oldest-first keys never change. */
    private final boolean keysChange;
    private final int maxPicks;
    private final int maxPerPeer;
    private final IncomingMessage[] picks;
    /** Valid picks in {@link #picks}, or -1 when they must be picked again. */
    private int pickCount = -1;
    /** Picks the last walk could find at most; it stopped there, so it saw nothing ranked behind its last pick. */
    private int lastWalkLimit;
    /**
     * Peers with messages at the last walk. A peer that arrives with a message ranked behind a limit-bound walk's
     * last pick raises the limit without touching the visited part, so a different count means walking again
     * (re-sorting does not count; a peer that leaves took a pick with it).
     */
    private int lastWalkPeers;
    /**
     * Messages in the order per peer. With the per-peer limit there can be no more than {@code maxPerPeer} picks
     * per peer here, and the walk stops there: without that bound, fewer sending peers than {@code maxPicks} would
     * make every walk visit the whole order (one peer with hundreds of messages waiting, as on loopback).
     */
    private final Map<InetSocketAddress, int[]> messagesPerPeer = new HashMap<>();

    GrantOrder(Comparator<? super IncomingMessage> comparator, boolean keysChange, int maxPicks, int maxPerPeer) {
        this.order = new FirstCachingSet<>(comparator);
        this.keysChange = keysChange;
        this.maxPicks = maxPicks;
        this.maxPerPeer = maxPerPeer;
        this.picks = new IncomingMessage[maxPicks];
    }

    boolean isEmpty() {
        return order.isEmpty();
    }

    int size() {
        return order.size();
    }

    void add(IncomingMessage m) {
        if (order.add(m)) {
            countIn(m);
        }
        forgetPicksIfVisited(m);
    }

    void remove(IncomingMessage m) {
        forgetPicksIfVisited(m);
        if (order.remove(m)) {
            countOut(m);
        }
    }

    /**
     * {@code m}'s key is about to drop by at most {@code maxDrop} bytes: takes it out of the order unless that
     * cannot move it, which is the case for the front message and for one whose predecessor has fewer unreceived
     * bytes than {@code m} will have at least (a message of another length, usually: re-sorting it, a remove and an
     * add in the tree, cost a tree entry per DATA packet).
     *
     * @return whether it was taken out, to be put back by {@link #endUpdate}
     */
    boolean beginUpdate(IncomingMessage m, int maxDrop) {
        if (!keysChange || front() == m) {
            return false;
        }
        IncomingMessage before = order.before(m);
        if (before != null && before.remainingBytes() < (long) m.remainingBytes() - maxDrop) {
            return false; // keys are unreceived bytes first (SRPT): m stays behind its predecessor
        }
        if (indexOfPick(m) < 0) {
            forgetPicksIfVisited(m);
        }
        order.remove(m);
        return true;
    }

    /** After {@link #beginUpdate} returned true: puts {@code m} back with its new key, unless it no longer waits. */
    void endUpdate(IncomingMessage m, boolean stillWaiting) {
        int pick = indexOfPick(m);
        if (!stillWaiting) {
            countOut(m);
            if (pick >= 0) {
                pickCount = -1;
            }
            return;
        }
        order.add(m);
        if (pick >= 0) {
            movePickForward(pick);
        } else {
            forgetPicksIfVisited(m);
        }
    }

    /** The picks, in order: returns how many; {@link #pick} gives each. */
    int pickCandidates() {
        if (pickCount < 0 || messagesPerPeer.size() != lastWalkPeers) {
            pickCount = walk();
        }
        return pickCount;
    }

    IncomingMessage pick(int rank) {
        return picks[rank];
    }

    private int walk() {
        lastWalkPeers = messagesPerPeer.size();
        lastWalkLimit = maxPerPeer < maxPicks
                ? (int) Math.min(maxPicks, (long) maxPerPeer * messagesPerPeer.size()) : maxPicks;
        int count = 0;
        Iterator<IncomingMessage> it = order.iterator();
        while (it.hasNext() && count < lastWalkLimit) {
            IncomingMessage m = it.next();
            if (maxPerPeer < maxPicks && picksOfPeer(m, count) >= maxPerPeer) {
                continue;
            }
            picks[count++] = m;
        }
        return count;
    }

    private int picksOfPeer(IncomingMessage m, int count) {
        int same = 0;
        for (int i = 0; i < count; i++) {
            if (picks[i].owner().peerAddress().equals(m.owner().peerAddress())) {
                same++;
            }
        }
        return same;
    }

    private int indexOfPick(IncomingMessage m) {
        for (int i = 0; i < pickCount; i++) {
            if (picks[i] == m) {
                return i;
            }
        }
        return -1;
    }

    /** The pick at {@code index} got a lower key: it moves ahead of the picks it now ranks before. */
    private void movePickForward(int index) {
        IncomingMessage m = picks[index];
        while (index > 0 && order.comparator().compare(m, picks[index - 1]) < 0) {
            picks[index] = picks[index - 1];
            index--;
        }
        picks[index] = m;
    }

    /**
     * Drops the picks when {@code m}, entering or leaving the order with its current key, is in the part the last
     * walk visited. A full walk stops at its last pick, so a message ranked behind it was never looked at; a walk
     * that found fewer picks saw the whole order.
     */
    private void forgetPicksIfVisited(IncomingMessage m) {
        if (pickCount >= 0
                && (pickCount < lastWalkLimit || order.comparator().compare(m, picks[pickCount - 1]) <= 0)) {
            pickCount = -1;
        }
    }

    /** The first message; the order is not empty. */
    IncomingMessage front() {
        return order.first();
    }

    // Membership per peer changes only when a message joins or leaves, not while it is re-sorted, so a DATA
    // packet for a message behind the front costs no hash-map work.
    private void countIn(IncomingMessage m) {
        messagesPerPeer.computeIfAbsent(m.owner().peerAddress(), k -> new int[1])[0]++;
    }

    private void countOut(IncomingMessage m) {
        InetSocketAddress peer = m.owner().peerAddress();
        if (--messagesPerPeer.get(peer)[0] == 0) {
            messagesPerPeer.remove(peer);
        }
    }
}
