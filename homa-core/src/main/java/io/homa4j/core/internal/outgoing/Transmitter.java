package io.homa4j.core.internal.outgoing;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.PacketSink;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.order.IndexedHeap;
import io.homa4j.core.internal.order.Ranked;
import io.homa4j.core.internal.pacer.Pacer;
import io.homa4j.core.internal.timer.SilenceRules;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * The sending half of the engine: turns outgoing messages into DATA packets and decides which goes next.
 *
 * <ul>
 *   <li>Retransmissions asked for by RESEND go first (they fill holes the receiver is waiting on).</li>
 *   <li>Then new bytes by SRPT: the sendable message with the fewest bytes left, ties to the oldest; every
 *       {@code 1/fifoFraction}-th pick goes to the oldest sendable message instead, so a long message is
 *       never starved by a stream of short ones.</li>
 *   <li>The {@link Pacer} holds packets back while the host's own queue estimate is over its bound; a message
 *       with at most {@code pacerNeverDeferBytes} left is sent anyway (it would finish at once).</li>
 * </ul>
 * Control packets bypass the queue (they go at the top level) but are charged to the pacer's link estimate.
 * Engine thread only.
 */
public final class Transmitter {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Transmitter.class);

    private final PacketSink sink;
    private final PacketEncoder encoder;
    private final Metrics metrics;
    private final Pacer pacer;
    /** How late a poll for the pacer may come: {@link HomaConfig#pacerWakeLatenessNanos()} or {@link #fitPacer}. */
    private long wakeLatenessNanos;
    /** The configured pacer bound: {@link #fitPacer} may lower the bound, never raise it past this. */
    private final long configuredMaxQueueNanos;
    /** What the pacer adds to a packet's UDP payload: IP and UDP headers and the link's framing. */
    private final int packetOverheadBytes;
    private final int maxPayload;
    private final int neverDeferBytes;
    private final int controlPriority;
    private final int fifoEvery;
    /**
     * How long a sent byte may still be on its way on the network (twice the configured RTT, at least one timer
     * tick): a RESEND does not retransmit bytes sent more recently than that, plus the host's lag, or than the
     * receiver's measured round trip if longer, at most {@link #maxInFlightNanos} (see
     * {@link #inFlightNanos(OutgoingMessage)}).
     */
    private final long inFlightNanos;
    /**
     * The longest a receiver waits in silence before it asks again ({@link SilenceRules#keepAliveTicks()}, the cap
     * of its RESEND interval): bytes sent longer ago than that cannot count as still on their way, whatever the
     * measured round trip says. Without the cap, one estimate inflated by a stalled probe (seconds) would make this
     * sender answer BUSY to every RESEND for a lost packet for that long, each BUSY keeping both sides' timers from
     * ever ending the RPC.
     */
    private final long maxInFlightNanos;
    /** The host's recent lag in reading its sockets (see {@link #hostLag}); widens the in-flight time. */
    private long hostLagNanos;
    /**
     * Next-to-send order: SRPT, or oldest first when {@link HomaConfig#srpt()} is off. A message is in it, and in
     * {@link #byAge}, exactly while it has sendable bytes ({@link #sync}); sending lowers its key in place.
     */
    private final IndexedHeap<OutgoingMessage> bySrpt;
    private final IndexedHeap<OutgoingMessage> byAge = new IndexedHeap<>(Ranked.AGE, OutgoingMessage.AGE_POSITION);
    private final ArrayDeque<OutgoingMessage> retransmits = new ArrayDeque<>();
    /** Messages whose payload could not be read, waiting for the engine to fail their RPCs. */
    private final ArrayDeque<OutgoingMessage> unreadable = new ArrayDeque<>();
    private long picks;
    /** Until when nothing is sent after an allocation failure ({@link #noMemory}); a tick after it. */
    private long noMemoryUntilNanos = Long.MIN_VALUE;
    private final long retryAfterNoMemoryNanos;
    private boolean sentSinceFlush;

    public Transmitter(HomaConfig config, PacketSink sink, PacketEncoder encoder, Metrics metrics, SilenceRules silence,
                       long nowNanos) {
        this.retryAfterNoMemoryNanos = config.tickNanos();
        this.bySrpt = new IndexedHeap<>(config.srpt() ? Ranked.SRPT : Ranked.AGE, OutgoingMessage.SRPT_POSITION);
        this.sink = sink;
        this.encoder = encoder;
        this.metrics = metrics;
        this.pacer = new Pacer(config.linkMbps(), config.pacerMaxQueueNanos(), nowNanos);
        this.wakeLatenessNanos = config.pacerWakeLatenessNanos();
        this.configuredMaxQueueNanos = config.pacerMaxQueueNanos();
        this.packetOverheadBytes = HomaConfig.IP_UDP_HEADER_BYTES + config.linkFramingBytes();
        this.maxPayload = DataHeader.maxPayload(config.maxUdpPayload());
        this.neverDeferBytes = config.pacerNeverDeferBytes();
        this.controlPriority = config.priorityLevels() - 1;
        this.inFlightNanos = Math.max(2L * config.rttMicros() * 1_000, config.tickNanos());
        this.maxInFlightNanos = Math.max(inFlightNanos, (long) silence.keepAliveTicks() * config.tickNanos());
        this.fifoEvery = config.fifoGrantFraction() > 0 ? (int) Math.max(2, Math.round(1 / config.fifoGrantFraction()))
                : Integer.MAX_VALUE;
    }

    public Pacer pacer() {
        return pacer;
    }

    /**
     * Sets the pacer's queue bound to {@code maxQueueNanos} (at most the configured
     * {@link HomaConfig#pacerMaxQueueNanos()}, at least 1 ns) and its wake lateness to {@code wakeLatenessNanos}
     * (at least 0, below the bound): the driver's timers proved more precise than the configuration assumed, so
     * fewer packets need to wait in the host's queue to keep its link busy through a late wake-up.
     */
    public void fitPacer(long maxQueueNanos, long wakeLatenessNanos) {
        long bound = Math.max(1, Math.min(configuredMaxQueueNanos, maxQueueNanos));
        pacer.maxQueueNanos(bound);
        this.wakeLatenessNanos = Math.max(0, Math.min(bound - 1, wakeLatenessNanos));
    }

    /** How late a poll for the pacer may come, as in effect now. */
    public long wakeLatenessNanos() {
        return wakeLatenessNanos;
    }

    /** Starts sending {@code m}: its unscheduled bytes are sendable at once. */
    public void add(OutgoingMessage m) {
        sync(m);
    }

    /** Stops sending {@code m} (RPC finished or dropped). Does not release its payload. */
    public void remove(OutgoingMessage m) {
        bySrpt.remove(m);
        byAge.remove(m);
        if (m.inRetransmitQueue) {
            retransmits.remove(m);
            m.inRetransmitQueue = false;
        }
    }

    /** A GRANT arrived for {@code m}. */
    public void grant(OutgoingMessage m, int offset, int priority) {
        // A grant changes what may be sent, not the orders' keys (unsent bytes, creation order): a queued message
        // keeps its place; one that had nothing sendable joins the orders.
        m.grant(offset, priority);
        sync(m);
    }

    /**
     * The host that runs the engine recently took up to {@code lagNanos} between reads of its sockets (a long
     * event-loop turn: a burst of work, a descheduled thread, a cold JIT). A RESEND we read may have waited that
     * long before we read it, and bytes we sent may have waited as long in our send path: on a 2-core machine under
     * load we saw 300 ms turns make the engine retransmit hundreds of responses that were not lost but had crossed
     * the RESENDs asking for them. So bytes sent within {@code inFlight + 3 x lag} count as on their way: the
     * RESEND's wait here, our own send delay, and the peer's (which we cannot see; ours stands in for it).
     */
    public void hostLag(long lagNanos) {
        this.hostLagNanos = Math.max(0, lagNanos);
    }

    /**
     * A RESEND arrived for {@code m}: retransmit what of the range was sent, and treat the range's end as granted.
     *
     * @return true when none of the range could be retransmitted because its bytes are still waiting here to be
     *         sent for the first time (sender SRPT, pacer): nothing was lost, and the caller should answer BUSY so
     *         the receiver's silence timer knows the sender is alive (as the Linux module does). False when a
     *         retransmission was queued, or when the range lies beyond the message (a receiver that took the wrong
     *         length from a corrupted packet: no answer, so that call times out instead of being kept alive)
     */
    public boolean resend(OutgoingMessage m, int offset, int length, int priority, long nowNanos) {
        long end = Math.min((long) offset + length, m.length());
        m.extendGrant((int) end);
        // Bytes sent within the in-flight time (widened by the host's lag) may not have arrived when the receiver
        // asked: the RESEND and the data crossed. They are treated like bytes not sent yet (BUSY); if they were
        // lost, a later RESEND, once they are older than that window, finds them settled and gets them.
        int settled = m.settledOffset(nowNanos, inFlightNanos(m));
        boolean queued = m.addRetransmit(offset, (int) Math.min(end, settled), priority);
        sync(m);
        return !queued && offset < m.length() && end > settled;
    }

    /**
     * How long bytes of {@code m} may still be on their way to its receiver: the configured in-flight time widened
     * by three host lags (see {@link #hostLag}), or the round trip measured with that receiver ({@code SRTT + 4 x
     * RTTVAR}, queueing in the network included), whichever is longer: a packet granted at a low priority level
     * can wait behind higher levels in a switch for longer than the configured time, and a RESEND that crossed it
     * must not draw a copy of a packet that is only queued.
     *
     * <p>The cap ({@link #maxInFlightNanos}) bounds the measured round trip only, not the host's own lag: the
     * engine stamps a whole loop turn's sends with the turn's start, so after a turn longer than the cap (a JVM
     * compiling in its first seconds) the bytes that left at the turn's end would look older than they are, and
     * RESENDs that crossed them would draw needless copies. The lag is reported gone again once the turns are
     * short (the Netty driver: within half a second), so a real loss waits at most that long more.
     */
    private long inFlightNanos(OutgoingMessage m) {
        return Math.max(window(m, inFlightNanos), inFlightNanos + 3 * hostLagNanos);
    }

    /**
     * {@code atLeast} or the receiver's measured round trip, whichever is longer, at most
     * {@link #maxInFlightNanos}.
     */
    private long window(OutgoingMessage m, long atLeast) {
        return Math.min(maxInFlightNanos, Math.max(atLeast, m.peerTimeoutNanos()));
    }

    /**
     * Rewinds {@code m} to byte 0 (client restart after server state loss). It leaves the retransmit queue too:
     * the rewind drops its pending ranges, and a queued message without ranges would be "retransmitted" with
     * none (a RESEND, then RPC_UNKNOWN before the retransmission left).
     */
    public void rewind(OutgoingMessage m) {
        remove(m);
        m.rewind();
        sync(m);
    }

    /**
     * After {@code m}'s counters changed (or for a new message): in both orders while it has sendable bytes, in
     * neither otherwise; in the retransmit queue while it has ranges to send again.
     */
    private void sync(OutgoingMessage m) {
        if (m.hasSendableBytes()) {
            if (!bySrpt.contains(m)) {
                bySrpt.add(m);
            }
            if (!byAge.contains(m)) {
                byAge.add(m);
            }
        } else {
            bySrpt.remove(m);
            byAge.remove(m);
        }
        if (!m.inRetransmitQueue && m.hasRetransmit()) {
            retransmits.add(m);
            m.inRetransmitQueue = true;
        }
    }

    /** Sends every DATA packet that is due now, within the pacer's bound. */
    public void transmit(long nowNanos) {
        if (nowNanos < noMemoryUntilNanos) {
            return;
        }
        while (!outOfMemory(nowNanos)) {
            OutgoingMessage retransmit = retransmits.peekFirst();
            if (retransmit != null) {
                int wire = wireBytes(retransmit.retransmitSegmentLength(maxPayload));
                if (!pacer.hasRoom(wire, nowNanos)) {
                    if (!sendNeverDeferred(nowNanos)) {
                        return;
                    }
                    continue;
                }
                sendRetransmit(retransmit, nowNanos);
                continue;
            }
            if (bySrpt.isEmpty()) {
                return;
            }
            OutgoingMessage first = bySrpt.first();
            int wire = wireBytes(first.nextSegmentLength(maxPayload));
            if (!pacer.hasRoom(wire, nowNanos)) {
                if (!sendNeverDeferred(nowNanos)) {
                    return;
                }
                continue;
            }
            OutgoingMessage pick = ++picks % fifoEvery == 0 ? byAge.first() : first;
            sendNew(pick, nowNanos);
        }
    }

    /** Sends one packet of the shortest message if it is small enough to bypass the pacer. */
    private boolean sendNeverDeferred(long nowNanos) {
        if (bySrpt.isEmpty()) {
            return false;
        }
        OutgoingMessage first = bySrpt.first();
        if (first.remainingBytes() > neverDeferBytes) {
            return false;
        }
        sendNew(first, nowNanos);
        return true;
    }

    private void sendNew(OutgoingMessage m, long nowNanos) {
        int offset = m.nextOffset();
        int segment = m.length() == 0 ? 0 : m.nextSegmentLength(maxPayload);
        boolean wasAllSent = m.allSent();
        if (!sendData(m, offset, segment, m.priorityAt(offset), 0, nowNanos)) {
            return; // no memory for the packet: it waits where it was (an unreadable one has left the orders)
        }
        if (offset == 0) {
            m.owner().onFirstSent(nowNanos);
        }
        // Checkpoints a window apart: a byte then counts as settled between one and two windows after it left.
        m.advance(segment, nowNanos, window(m, inFlightNanos));
        bySrpt.reorder(m); // fewer unsent bytes: it can only move ahead (a FIFO-share pick may overtake others)
        sync(m);
        if (m.allSent() && !wasAllSent) {
            m.owner().onAllSent(nowNanos);
        }
    }

    private void sendRetransmit(OutgoingMessage m, long nowNanos) {
        int offset = m.retransmitOffset();
        int segment = m.retransmitSegmentLength(maxPayload);
        if (!sendData(m, offset, segment, m.retransmitPriority(), DataHeader.FLAG_RETRANSMIT, nowNanos)) {
            return;
        }
        m.retransmitted(segment);
        metrics.retransmitted();
        if (!m.hasRetransmit()) {
            retransmits.remove(m);
            m.inRetransmitQueue = false;
        }
    }

    /** Sends one DATA packet of {@code m}; false (and {@code m} set aside as unreadable) when it cannot be read. */
    private boolean sendData(OutgoingMessage m, int offset, int segment, int priority, int extraFlags,
                             long nowNanos) {
        ByteBuf packet;
        try {
            packet = encoder.data(m.owner().wireId(), m.length(), offset, m.granted(), m.owner().cutoffsVersion(),
                    m.flags() | extraFlags, m.owner().takePiggybackAck(), m.payload(), segment, priority);
        } catch (RuntimeException unreadable) {
            // The application released (or shrank) a buffer it had handed over. Only this message is affected:
            // left in the queues it would stay first and fail every later transmit, breaking the whole engine.
            setAsideUnreadable(m, unreadable);
            return false;
        } catch (OutOfMemoryError noMemory) {
            noMemory(nowNanos, noMemory);
            return false;
        }
        metrics.dataBytesOut(segment);
        emit(m.owner().peerAddress(), priority, PacketType.DATA, packet, nowNanos);
        return true;
    }

    private void setAsideUnreadable(OutgoingMessage m, RuntimeException cause) {
        remove(m);
        m.markUnreadable();
        unreadable.add(m);
        metrics.unreadableMessage();
        log.debug("message of {} is unreadable; failing its RPC", m.owner(), cause);
    }

    /**
     * The next message found unreadable since the last call (its RPC must be failed by its owner), or null. The
     * message is out of every queue and is never sent again; the caller still retires it.
     */
    public OutgoingMessage pollUnreadable() {
        return unreadable.poll();
    }

    /** True when a message found unreadable waits for {@link #pollUnreadable}. */
    public boolean hasUnreadable() {
        return !unreadable.isEmpty();
    }

    /**
     * Allocating a packet failed (out of direct memory): nothing more is sent until a tick later, when the
     * transmitter tries again; to the protocol what was not sent meanwhile is late, which its timers repair.
     * Escaping, the error left the engine half-updated (an RPC registered, its caller never told its id).
     */
    public void noMemory(long nowNanos, OutOfMemoryError e) {
        metrics.allocationFailure();
        if (metrics.allocationFailureCount() == 1) {
            log.warn("no memory for an outgoing packet; sending again a tick later (counted in allocationFailures;"
                    + " logged once)", e);
        }
        noMemoryUntilNanos = nowNanos + retryAfterNoMemoryNanos;
    }

    private boolean outOfMemory(long nowNanos) {
        return nowNanos < noMemoryUntilNanos;
    }

    /** Sends a control packet at the top level, now. */
    public void sendControl(InetSocketAddress peer, PacketType type, ByteBuf packet, long nowNanos) {
        emit(peer, controlPriority, type, packet, nowNanos);
    }

    private void emit(InetSocketAddress peer, int priority, PacketType type, ByteBuf packet, long nowNanos) {
        int bytes = packet.readableBytes();
        metrics.packetOut(type, bytes);
        pacer.sent(bytes + packetOverheadBytes, nowNanos);
        sentSinceFlush = true;
        try {
            sink.send(peer, priority, packet);
        } catch (RuntimeException e) {
            // The sink owns the packet even when it throws. To the protocol this is a lost packet, which
            // retransmission repairs; the engine's state must not be left half-updated by a transport error.
            metrics.sinkError();
            if (metrics.sinkErrorCount() == 1) {
                log.warn("PacketSink.send threw (counted in sinkErrors; logged once)", e);
            }
        }
    }

    private int wireBytes(int segment) {
        return DataHeader.LENGTH + segment + packetOverheadBytes;
    }

    /** Calls the sink's flush if anything was sent since the last flush. */
    public void flush() {
        if (sentSinceFlush) {
            sentSinceFlush = false;
            try {
                sink.flush();
            } catch (RuntimeException e) {
                metrics.sinkError();
                if (metrics.sinkErrorCount() == 1) {
                    log.warn("PacketSink.flush threw (counted in sinkErrors; logged once)", e);
                }
            }
        }
    }

    /** Earliest time the pacer lets the next queued packet go, or Long.MAX_VALUE when nothing is queued. */
    public long nextWakeNanos() {
        long wake = sendableWakeNanos();
        return wake == Long.MAX_VALUE ? wake : Math.max(wake, noMemoryUntilNanos);
    }

    /**
     * Latest time to poll for the pacer: {@link #nextWakeNanos()} plus {@code pacerWakeLatenessNanos}, by when the
     * host's queue has drained that much more and several packets go in one turn (Long.MAX_VALUE when nothing is
     * queued).
     */
    public long latestWakeNanos() {
        long wake = nextWakeNanos();
        return wake == Long.MAX_VALUE ? wake : wake + wakeLatenessNanos;
    }

    private long sendableWakeNanos() {
        OutgoingMessage r = retransmits.peekFirst();
        if (r != null) {
            return pacer.roomAtNanos(wireBytes(r.retransmitSegmentLength(maxPayload)));
        }
        if (bySrpt.isEmpty()) {
            return Long.MAX_VALUE;
        }
        return pacer.roomAtNanos(wireBytes(bySrpt.first().nextSegmentLength(maxPayload)));
    }

    public int maxPayload() {
        return maxPayload;
    }
}
