package io.homa4j.core.grant;

import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.Metrics;
import io.homa4j.core.priority.ScheduledPriorities;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The receiver's grant policy (Homa's receiver-driven congestion control).
 *
 * <ul>
 *   <li>Active messages (not yet fully granted) are ranked SRPT: fewest unreceived bytes first, ties to the
 *       oldest.</li>
 *   <li>At most {@code maxOvercommit} messages hold scheduled grants at once ("granted set": granted beyond
 *       their unscheduled bytes and not yet received); a better-ranked newcomer waits until a slot drains.</li>
 *   <li>Each granted message may run {@code window = maxIncoming / (granted + 1)} bytes ahead of what it has
 *       received; the total of granted-but-unreceived bytes over all incoming messages (unscheduled bytes
 *       included, as in the Linux module) stays at or under {@code maxIncomingBytes} when a grant is issued.</li>
 *   <li>FIFO share: for every byte granted by SRPT, {@code f/(1-f)} bytes of credit accrue; when the credit
 *       reaches one increment, the oldest active message gets that increment at the highest scheduled level,
 *       so long messages progress under a stream of short ones.</li>
 *   <li>The priority carried in a GRANT follows the rank ({@link ScheduledPriorities}).</li>
 * </ul>
 * Engine thread only.
 */
public final class GrantScheduler {
    /** Where grants go: the engine encodes and sends a GRANT packet. */
    public interface GrantSender {
        void sendGrant(IncomingMessage message, int offset, int priority);
    }

    private static final Comparator<IncomingMessage> SRPT = Comparator
            .comparingInt(IncomingMessage::remainingBytes)
            .thenComparingLong(IncomingMessage::sequence);
    private static final Comparator<IncomingMessage> AGE = Comparator.comparingLong(IncomingMessage::sequence);

    private final int maxOvercommit;
    private final long maxIncoming;
    private final double fifoFraction;
    private final int minGrantBytes;
    private final int fifoIncrement;
    private final ScheduledPriorities priorities;
    private final Metrics metrics;
    /** Grant order: SRPT, or oldest first without SRPT. */
    private final TreeSet<IncomingMessage> active;
    private final TreeSet<IncomingMessage> activeByAge = new TreeSet<>(AGE);
    private final Set<IncomingMessage> grantedSet = new HashSet<>();
    private long outstanding;
    private double fifoCredit;

    /**
     * @param minGrantBytes  smallest grant increment worth a packet (one full DATA payload)
     * @param fifoIncrement  bytes given to the oldest message per FIFO grant
     */
    public GrantScheduler(int maxOvercommit, long maxIncoming, double fifoFraction, int minGrantBytes,
                          int fifoIncrement, ScheduledPriorities priorities, Metrics metrics) {
        this(maxOvercommit, maxIncoming, fifoFraction, minGrantBytes, fifoIncrement, priorities, metrics, true);
    }

    /** @param srpt rank by fewest unreceived bytes (true) or oldest first (false, an ablation) */
    public GrantScheduler(int maxOvercommit, long maxIncoming, double fifoFraction, int minGrantBytes,
                          int fifoIncrement, ScheduledPriorities priorities, Metrics metrics, boolean srpt) {
        this.active = new TreeSet<>(srpt ? SRPT : AGE);
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
        outstanding += m.outstandingBytes();
        if (m.granted() < m.length()) {
            active.add(m);
            activeByAge.add(m);
            m.inActiveSet = true;
        }
    }

    /**
     * Call before {@link IncomingMessage#accept} changes the message's counters: removes it from the ordered
     * sets (whose keys are about to change).
     */
    public void beforeUpdate(IncomingMessage m) {
        outstanding -= m.outstandingBytes();
        if (m.inActiveSet) {
            active.remove(m);
            activeByAge.remove(m);
        }
    }

    /** Call after {@link IncomingMessage#accept}: re-inserts with the new counters. */
    public void afterUpdate(IncomingMessage m) {
        outstanding += m.outstandingBytes();
        if (m.inActiveSet) {
            if (m.granted() < m.length()) {
                active.add(m);
                activeByAge.add(m);
            } else {
                m.inActiveSet = false;
            }
        }
        refreshGrantedSet(m);
    }

    /** The message is complete or its RPC is gone. */
    public void removed(IncomingMessage m) {
        outstanding -= m.outstandingBytes();
        if (m.inActiveSet) {
            active.remove(m);
            activeByAge.remove(m);
            m.inActiveSet = false;
        }
        if (m.inGrantedSet) {
            grantedSet.remove(m);
            m.inGrantedSet = false;
        }
    }

    private void refreshGrantedSet(IncomingMessage m) {
        boolean holds = m.holdsScheduledGrant();
        if (holds && !m.inGrantedSet) {
            grantedSet.add(m);
            m.inGrantedSet = true;
            metrics.grantedMessages(grantedSet.size());
        } else if (!holds && m.inGrantedSet) {
            grantedSet.remove(m);
            m.inGrantedSet = false;
        }
    }

    /** Issues every grant the policy allows now. */
    public void schedule(GrantSender sender) {
        if (active.isEmpty()) {
            return;
        }
        int ranked = Math.min(active.size(), maxOvercommit);
        long window = Math.max(minGrantBytes, maxIncoming / (ranked + 1));
        long srptGranted = 0;
        int rank = 0;
        Iterator<IncomingMessage> it = active.iterator();
        List<IncomingMessage> changed = null;
        while (it.hasNext() && rank < maxOvercommit) {
            IncomingMessage m = it.next();
            int priority = priorities.levelFor(rank, ranked);
            rank++;
            if (!m.inGrantedSet && grantedSet.size() >= maxOvercommit) {
                continue;
            }
            int delta = grantAmount(m, m.receivedBytes() + window);
            if (delta > 0) {
                if (changed == null) {
                    changed = new ArrayList<>(ranked);
                }
                changed.add(m);
                srptGranted += delta;
                issue(sender, m, m.granted() + delta, priority);
            }
        }
        if (changed != null) {
            for (IncomingMessage m : changed) {
                if (m.granted() >= m.length()) {
                    active.remove(m);
                    activeByAge.remove(m);
                    m.inActiveSet = false;
                }
            }
        }
        fifoGrant(sender, srptGranted);
    }

    private void fifoGrant(GrantSender sender, long srptGranted) {
        if (fifoFraction <= 0 || activeByAge.isEmpty()) {
            return;
        }
        fifoCredit += srptGranted * fifoFraction / (1 - fifoFraction);
        if (fifoCredit < fifoIncrement) {
            return;
        }
        IncomingMessage oldest = activeByAge.first();
        if (!oldest.inGrantedSet && grantedSet.size() >= maxOvercommit) {
            return;
        }
        int delta = grantAmount(oldest, (long) oldest.granted() + fifoIncrement);
        if (delta > 0) {
            fifoCredit -= fifoIncrement;
            // the SRPT key (unreceived bytes) does not depend on the grant, so the sets stay ordered
            issue(sender, oldest, oldest.granted() + delta, priorities.highestLevel());
            if (oldest.granted() >= oldest.length()) {
                active.remove(oldest);
                activeByAge.remove(oldest);
                oldest.inActiveSet = false;
            }
        }
    }

    /** Bytes to add to {@code m}'s grant to reach {@code target}, within the message and the incoming cap. */
    private int grantAmount(IncomingMessage m, long target) {
        long goal = Math.min(m.length(), target);
        long room = maxIncoming - outstanding;
        long newGranted = Math.min(goal, m.granted() + Math.max(0, room));
        long delta = newGranted - m.granted();
        if (delta <= 0) {
            return 0;
        }
        if (delta < minGrantBytes && newGranted < m.length()) {
            return 0;
        }
        return (int) delta;
    }

    private void issue(GrantSender sender, IncomingMessage m, int newGranted, int priority) {
        int delta = newGranted - m.granted();
        outstanding += delta;
        m.granted(newGranted);
        m.lastGrantPriority(priority);
        refreshGrantedSet(m);
        metrics.granted(delta);
        metrics.grantedBytesOutstanding(outstanding);
        sender.sendGrant(m, newGranted, priority);
    }

    /** Granted-but-not-received bytes over all incoming messages. */
    public long outstandingBytes() {
        return outstanding;
    }

    /** Messages currently holding scheduled grants. */
    public int grantedMessages() {
        return grantedSet.size();
    }

    /** Messages waiting for grants. */
    public int activeMessages() {
        return active.size();
    }
}
