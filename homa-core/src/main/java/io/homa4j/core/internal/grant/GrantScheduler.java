package io.homa4j.core.internal.grant;

import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.order.FirstCachingSet;
import io.homa4j.core.internal.order.Ranked;
import io.homa4j.core.internal.priority.ScheduledPriorities;

import java.util.ArrayList;
import java.util.List;

/**
 * The receiver's grant policy (Homa's receiver-driven congestion control).
 *
 * <ul>
 *   <li>Active messages (not yet fully granted) are ranked SRPT: fewest unreceived bytes first, ties to the
 *       oldest.</li>
 *   <li>Candidates for SRPT grants are the first {@code maxOvercommit} active messages in SRPT order, taking at
 *       most {@code maxPerPeer} messages of any one peer (a sender sends its own messages shortest first, so
 *       grants to more of them would sit unused); the others wait.</li>
 *   <li>At most {@code maxOvercommit} messages hold an SRPT grant slot at once. A message holds a slot from its
 *       first SRPT grant while it is still being granted and has granted bytes not yet received; it gives the
 *       slot up when it is fully granted (its last window may still be in flight, bounded by the incoming cap,
 *       as in the Linux module) or when everything granted has arrived. A better-ranked newcomer waits for a
 *       free slot.</li>
 *   <li>Each slot holder may run {@code window = maxIncoming / (candidates + 1)} bytes ahead of what it has
 *       received; the total of granted-but-unreceived bytes over all incoming messages (unscheduled bytes
 *       included, as in the Linux module) never exceeds {@code maxIncomingBytes} because of a grant.</li>
 *   <li>FIFO share: for every byte granted by SRPT, {@code f/(1-f)} bytes of credit accrue; when the credit
 *       reaches one increment, the oldest active message gets that increment at the highest scheduled level,
 *       before the SRPT pass takes the room, without needing a slot (as the module's FIFO grants ignore
 *       overcommit) and without waiting for room under the incoming cap (see {@link #fifoGrant}), so long messages
 *       progress under a stream of shorter ones. It gets the next increment only
 *       once the previous one has mostly arrived.</li>
 *   <li>The priority carried in a GRANT follows the rank ({@link ScheduledPriorities}).</li>
 * </ul>
 * Engine thread only.
 */
public final class GrantScheduler {
    /** Where grants go: the engine encodes and sends a GRANT packet. */
    public interface GrantSender {
        void sendGrant(IncomingMessage message, int offset, int priority);
    }

    private final int maxOvercommit;
    private final long maxIncoming;
    private final double fifoFraction;
    private final int minGrantBytes;
    private final int fifoIncrement;
    private final ScheduledPriorities priorities;
    private final Metrics metrics;
    /** Grant order: SRPT, or oldest first without SRPT; and the candidates picked from it. */
    private final GrantOrder active;
    /** The same messages oldest first; its first is asked for on every packet. */
    private final FirstCachingSet<IncomingMessage> activeByAge = new FirstCachingSet<>(Ranked.AGE);
    /**
     * Messages holding an SRPT grant slot: those with {@link IncomingMessage#holdsGrantSlot()} set. Membership of
     * {@link #active} is a flag of the message too ({@link IncomingMessage#awaitingGrants()}): both are asked on
     * every packet, and a field costs less than a lookup in the hash sets that held them before.
     */
    private int slotHolders;
    /** Between {@link #beforeUpdate} and {@link #afterUpdate}: the message was taken out of the SRPT order. */
    private boolean reorderPending;
    /**
     * Between {@link #beforeUpdate} and {@link #afterUpdate}: the message waits for grants (the update
     * cannot change that, so the bracket asks once per packet, not twice).
     */
    private boolean updatingActive;
    /** Scratch of {@link #schedule}: messages it granted fully, deactivated after the pass over the candidates. */
    private final List<IncomingMessage> fullyGranted = new ArrayList<>();
    private long outstanding;
    /** Accrues from SRPT grants; capped so a long SRPT run does not bank a burst of FIFO grants. */
    private double fifoCredit;

    /**
     * @param minGrantBytes  smallest grant increment worth a packet (one full DATA payload)
     * @param fifoIncrement  bytes given to the oldest message per FIFO grant
     */
    public GrantScheduler(int maxOvercommit, int maxPerPeer, long maxIncoming, double fifoFraction,
                          int minGrantBytes, int fifoIncrement, ScheduledPriorities priorities, Metrics metrics) {
        this(maxOvercommit, maxPerPeer, maxIncoming, fifoFraction, minGrantBytes, fifoIncrement, priorities, metrics,
                true);
    }

    /**
     * @param maxPerPeer most messages of one peer among the candidates
     * @param srpt       rank by fewest unreceived bytes (true) or oldest first (false, an ablation)
     */
    public GrantScheduler(int maxOvercommit, int maxPerPeer, long maxIncoming, double fifoFraction,
                          int minGrantBytes, int fifoIncrement, ScheduledPriorities priorities, Metrics metrics,
                          boolean srpt) {
        this.active = new GrantOrder(srpt ? Ranked.SRPT : Ranked.AGE, srpt, maxOvercommit, maxPerPeer);
        this.maxOvercommit = maxOvercommit;
        this.maxIncoming = maxIncoming;
        this.fifoFraction = fifoFraction;
        this.minGrantBytes = minGrantBytes;
        this.fifoIncrement = fifoIncrement;
        this.priorities = priorities;
        this.metrics = metrics;
    }

    /** A new incoming message: its unscheduled bytes count as outstanding; it waits for grants if longer. */
    public void added(IncomingMessage m) {
        outstanding += inFlight(m);
        if (m.granted() < m.length()) {
            active.add(m);
            activeByAge.add(m);
            m.awaitingGrants(true);
        }
    }

    /**
     * Call before {@link IncomingMessage#accept} changes the message's counters: takes it out of the SRPT order
     * when its key change could move it (not when it is the front message, nor when the packet's
     * {@code maxNewBytes} cannot take it past its predecessor), to be put back by {@link #afterUpdate}. It stays
     * in {@code activeByAge}: its key, the arrival order, never changes.
     */
    public void beforeUpdate(IncomingMessage m, int maxNewBytes) {
        outstanding -= inFlight(m);
        m.senderSilent(false); // it sent a packet: what it owes is on its way again
        // Receiving bytes only lowers m's SRPT key (and never changes its age), so m can only move towards
        // the front of the SRPT order. It is taken out only when a better-ranked neighbour exists that it might
        // overtake; the front message, the usual receiver of a run of packets, stays in place.
        updatingActive = m.awaitingGrants();
        reorderPending = updatingActive && active.beginUpdate(m, maxNewBytes);
    }

    /** Call after {@link IncomingMessage#accept}: re-inserts with the new counters. */
    public void afterUpdate(IncomingMessage m) {
        outstanding += inFlight(m);
        if (updatingActive) {
            // A packet may raise the grant to the whole message (a retransmission's incoming): then m leaves.
            boolean stillActive = m.granted() < m.length();
            if (reorderPending) {
                active.endUpdate(m, stillActive);
            } else if (!stillActive) {
                active.remove(m); // still findable: it was the front message, and stays in front
            }
            if (!stillActive) {
                leaveAgeOrder(m);
            }
        }
        reorderPending = false;
        updatingActive = false;
        refreshGrantedSet(m);
    }

    /** The message is complete or its RPC is gone. */
    public void removed(IncomingMessage m) {
        outstanding -= inFlight(m);
        if (m.awaitingGrants()) {
            deactivate(m);
        }
        leaveSlot(m);
    }

    /** Gives up {@code m}'s slot when it no longer needs one. Slots are only taken by SRPT grants. */
    private void refreshGrantedSet(IncomingMessage m) {
        if ((!m.holdsScheduledGrant() || m.granted() >= m.length())) {
            leaveSlot(m);
        }
    }

    private void takeSlot(IncomingMessage m) {
        if (m.holdsScheduledGrant() && m.granted() < m.length() && !m.holdsGrantSlot()) {
            m.holdsGrantSlot(true);
            slotHolders++;
            metrics.grantedMessages(slotHolders);
        }
    }

    private void leaveSlot(IncomingMessage m) {
        if (m.holdsGrantSlot()) {
            m.holdsGrantSlot(false);
            slotHolders--;
        }
    }

    /**
     * The sender of {@code m} fell silent (the receiver is about to ask it to resend): the bytes it owes are not on
     * their way, so they stop counting against {@code maxIncomingBytes} until its next packet, and it gets no
     * grants meanwhile. Without this, a forged first packet claiming a whole message as sent unscheduled held that
     * claim against the cap until its RPC expired, and a few such packets a second stopped every real grant.
     */
    public void senderSilent(IncomingMessage m) {
        if (!m.senderSilent()) {
            outstanding -= m.outstandingBytes();
            m.senderSilent(true);
        }
    }

    /** What {@code m} counts against {@code maxIncomingBytes}: its missing granted bytes, unless its sender is silent. */
    private static long inFlight(IncomingMessage m) {
        return m.senderSilent() ? 0 : m.outstandingBytes();
    }

    /** Issues every grant the policy allows now. */
    public void schedule(GrantSender sender) {
        if (active.isEmpty()) {
            return;
        }
        fifoGrant(sender);
        if (active.isEmpty()) {
            return; // the FIFO grant completed the last active message
        }
        int ranked = active.pickCandidates();
        long window = Math.max(minGrantBytes, maxIncoming / (ranked + 1));
        long minIncrement = minIncrement(window, minGrantBytes);
        for (int rank = 0; rank < ranked; rank++) {
            IncomingMessage m = active.pick(rank);
            int priority = priorities.levelFor(rank, ranked);
            if (m.senderSilent() || slotHolders >= maxOvercommit && !m.holdsGrantSlot()) {
                continue;
            }
            int delta = grantAmount(m, m.receivedBytes() + window, minIncrement);
            if (delta > 0) {
                if (m != activeByAge.first()) { // grants the oldest gets anyway are not owed a FIFO share
                    fifoCredit = Math.min(2.0 * fifoIncrement,
                            fifoCredit + delta * fifoFraction / (1 - fifoFraction));
                }
                issue(sender, m, m.granted() + delta, priority);
                takeSlot(m);
                refreshGrantedSet(m);
                if (m.granted() >= m.length()) {
                    fullyGranted.add(m);
                }
            }
        }
        for (int i = 0; i < fullyGranted.size(); i++) {
            deactivate(fullyGranted.get(i));
        }
        fullyGranted.clear();
    }

    /**
     * Coalescing: a GRANT only when it moves the offset by a quarter of the window and by at least two packets
     * (half the window, if that is less; never under one packet), so a sender gets one GRANT per several packets
     * rather than one per packet and still never runs dry (half the window stays in flight when the next GRANT
     * goes). The two-packet floor matters where the bandwidth-delay product is only a few packets (the netlab
     * rack's window is four): without it nearly every DATA packet would draw a GRANT, which costs reverse-link
     * bandwidth and an event-loop pass per packet. With windows of 8+ packets a quarter window is already two
     * packets or more, so the floor changes nothing there.
     */
    static long minIncrement(long window, int minGrantBytes) {
        long twoPackets = Math.min(2L * minGrantBytes, window / 2);
        return Math.max(twoPackets, Math.max(minGrantBytes, window / 4));
    }

    /** {@code m} no longer waits for grants. */
    private void deactivate(IncomingMessage m) {
        active.remove(m);
        leaveAgeOrder(m);
    }

    private void leaveAgeOrder(IncomingMessage m) {
        activeByAge.remove(m);
        m.awaitingGrants(false);
    }

    /**
     * The FIFO share, byte-exact: as soon as one packet of credit exists, the oldest message gets up to one
     * increment (never more than the credit), and exactly what it got is charged. It goes before the SRPT pass.
     * It does not wait for room under {@code maxIncomingBytes}: bytes granted to lower-ranked messages at low
     * levels may wait at a strict-priority switch port for as long as higher levels keep arriving, filling the
     * cap, and the oldest message would then starve, which the share is there to prevent (a long message under an
     * overload of short ones must still finish). The cap is exceeded by at most one increment: the next comes only
     * once the previous has mostly arrived.
     */
    private void fifoGrant(GrantSender sender) {
        if (fifoFraction <= 0 || fifoCredit < minGrantBytes) {
            return;
        }
        IncomingMessage oldest = activeByAge.first();
        if (oldest.senderSilent() || oldest.outstandingBytes() >= fifoIncrement) {
            return; // the last increment has not arrived yet; keep the credit
        }
        int delta = (int) Math.min(oldest.length() - oldest.granted(), Math.min(fifoIncrement, (long) fifoCredit));
        if (delta <= 0) {
            return;
        }
        fifoCredit -= delta;
        // the SRPT key (unreceived bytes) does not depend on the grant, so the sets stay ordered
        issue(sender, oldest, oldest.granted() + delta, priorities.highestLevel());
        refreshGrantedSet(oldest);
        if (oldest.granted() >= oldest.length()) {
            deactivate(oldest);
        }
    }

    /**
     * Bytes to add to {@code m}'s grant to reach {@code target}, within the message and the incoming cap; 0 when
     * that would be less than {@code minIncrement} (unless it completes the message).
     */
    private int grantAmount(IncomingMessage m, long target, long minIncrement) {
        long goal = Math.min(m.length(), target);
        long room = maxIncoming - outstanding;
        long newGranted = Math.min(goal, m.granted() + Math.max(0, room));
        long delta = newGranted - m.granted();
        if (delta <= 0) {
            return 0;
        }
        if (delta < minIncrement && newGranted < m.length()) {
            return 0;
        }
        return (int) delta;
    }

    private void issue(GrantSender sender, IncomingMessage m, int newGranted, int priority) {
        int delta = newGranted - m.granted();
        outstanding += delta;
        m.granted(newGranted, priority);
        metrics.granted(delta);
        metrics.grantedBytesOutstanding(outstanding);
        sender.sendGrant(m, newGranted, priority);
    }

    /** Granted-but-not-received bytes over all incoming messages. */
    public long outstandingBytes() {
        return outstanding;
    }
}
