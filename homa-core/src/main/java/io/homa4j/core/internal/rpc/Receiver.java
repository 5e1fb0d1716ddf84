package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.grant.GrantScheduler;
import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.timer.DownlinkDrain;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.DataHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The receiving side both halves share: admits new incoming messages against the buffer limits and reserves
 * their space, takes DATA segments into them with the grant scheduler's bookkeeping around each update, runs the
 * grant policy, and retires messages. Owns the count of reserved bytes. Engine thread only.
 *
 * <p>Every change to a message's received bytes goes through {@link #receiveSegment}: the buffer grows (and its
 * reservation with it) as bytes arrive, and the update is bracketed by {@link GrantScheduler#beforeUpdate} and
 * {@link GrantScheduler#afterUpdate}. That bracket is the place to take a run of segments of one message at once
 * (one growth and reservation check, one bracket, one grant decision per run).
 */
public final class Receiver {
    private final HomaConfig config;
    private final Metrics metrics;
    private final PacketVerdict verdict;
    private final GrantScheduler grants;
    private final EngineClock clock;
    private final GrantScheduler.GrantSender grantSender;
    /** What arriving DATA proves about our switch port's queues (see {@link #portDrainedFor}). */
    private final DownlinkDrain drain;
    /** Where {@link #wholeMessage} copies a message to. */
    private final ByteBufAllocator wholeMessages;
    private long bufferedBytes;

    /** @param wholeMessages where {@link #wholeMessage} copies a message to (a heap buffer) */
    public Receiver(HomaConfig config, Metrics metrics, PacketVerdict verdict, GrantScheduler grants,
                    EngineClock clock, ControlSender control, ByteBufAllocator wholeMessages) {
        this.config = config;
        this.metrics = metrics;
        this.verdict = verdict;
        this.grants = grants;
        this.clock = clock;
        this.wholeMessages = wholeMessages;
        this.drain = new DownlinkDrain(config.priorityLevels(), config.linkMbps(),
                config.maxUdpPayload() + HomaConfig.IP_UDP_HEADER_BYTES + config.linkFramingBytes(), clock.now());
        this.grantSender = (message, offset, priority) -> {
            MessageOwner owner = message.owner();
            // the peer's DATA for this message carries the other end's id of the RPC: ours with the low bit flipped
            owner.peerRtt().grantSent(owner.wireId() ^ 1, message.grantedBeforeLastGrant(), clock.now());
            control.grant(message, offset, priority);
        };
    }

    /** Bytes reserved for partially received messages. */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /**
     * Why the first DATA packet of a new incoming message from {@code peer} (null: unknown yet) cannot be kept
     * (a buffer limit, or too far ahead of any data: see {@link IncomingMessage#growthFor}), or null when it can.
     * The message is not created then, so a refused first packet leaves nothing behind.
     */
    DropReason firstSegmentRefusal(Peer peer, int length, DataHeader data) {
        long growth = IncomingMessage.growthFor(length, 0, 0, 0, data.offset(), data.segmentLength());
        return growth < 0 ? DropReason.AHEAD_OF_DATA : bufferLimitFor(peer, growth);
    }

    /**
     * The buffer limit that {@code reservation} more bytes from {@code peer} (null: unknown yet) would break, or
     * null when they fit.
     */
    private DropReason bufferLimitFor(Peer peer, long reservation) {
        if (reservation == 0) {
            return null;
        }
        long fromPeer = (peer == null ? 0 : peer.bufferedBytes()) + reservation;
        if (fromPeer > config.maxBufferedBytesPerPeer()) {
            return DropReason.PEER_BUFFER_LIMIT;
        }
        if (bufferedBytes + reservation > config.maxBufferedBytesTotal()) {
            return DropReason.TOTAL_BUFFER_LIMIT;
        }
        return null;
    }

    /**
     * A new incoming message for {@code owner}, from the first DATA seen of it (checked with
     * {@link #firstSegmentRefusal} first); it waits for grants if it needs them. It reserves nothing until its
     * segments arrive ({@link #receiveSegment}).
     */
    IncomingMessage open(MessageOwner owner, DataHeader first) {
        // What the sender claims to send unscheduled counts as on its way; a claim beyond this receiver's own
        // allowance is not taken on trust (a forger claims whole messages): beyond it the receiver grants.
        int claimed = Math.min(first.incoming(), Math.max(config.unscheduledBytes(),
                first.offset() + first.segmentLength()));
        IncomingMessage m = new IncomingMessage(owner, first.messageLength(), first.error(), claimed,
                clock.nextSequence(), first.sentLevel());
        grants.added(m);
        return m;
    }

    /**
     * Whether the packet of {@code data} carries the whole (non-empty) message: it needs no reassembly, no
     * reservation and no grant, and {@link #wholeMessage} takes it.
     */
    static boolean carriesWholeMessage(DataHeader data) {
        return data.offset() == 0 && data.segmentLength() == data.messageLength() && data.messageLength() > 0;
    }

    /**
     * The payload of a message that came whole in one packet ({@link #carriesWholeMessage}), copied out of the
     * packet, whose read buffer is reused, into a heap buffer of its own (from the engine's allocator for such
     * messages, {@code SmallMessageAllocator} unless told otherwise); the caller owns it. Null when the JVM's heap
     * is exhausted: the caller then takes the message the usual way ({@link #open}, {@link #receiveSegment}),
     * which counts the failure and keeps the message for the sender's retransmission.
     */
    ByteBuf wholeMessage(DataHeader data, ByteBuf packet, int payloadIndex) {
        int length = data.messageLength();
        ByteBuf payload;
        try {
            payload = wholeMessages.heapBuffer(length, length);
        } catch (OutOfMemoryError noMemory) {
            return null;
        }
        payload.writeBytes(packet, payloadIndex, length);
        metrics.dataBytesIn(length);
        return payload;
    }

    /**
     * The sender of {@code m} owes bytes and sent none for a RESEND interval: they stop counting as on their way
     * (see {@link GrantScheduler#senderSilent}) until it sends again.
     */
    void senderSilent(IncomingMessage m) {
        grants.senderSilent(m);
    }

    /** Charges {@code bytes} more of {@code m} to the buffer limits. */
    private void reserve(IncomingMessage m, Peer peer, long bytes) {
        m.reservedBytes(m.reservedBytes() + bytes);
        peer.addBufferedBytes(bytes);
        bufferedBytes += bytes;
        metrics.bufferedBytes(bufferedBytes);
    }

    /**
     * Accepts one DATA segment into {@code m}, from {@code peer}, growing its buffer (and its reservation) as
     * needed; false (drop counted) when a duplicate or not keepable: too fragmented, too far ahead, over a buffer
     * limit, or no memory. A refused segment changes nothing; the sender's retransmission brings it again.
     */
    boolean receiveSegment(IncomingMessage m, Peer peer, DataHeader data, ByteBuf packet, int payloadIndex) {
        if (m.length() == 0) {
            if (!m.acceptEmpty()) {
                verdict.drop(DropReason.DUPLICATE);
                return false;
            }
            return true;
        }
        long growth = m.growthFor(data.offset(), data.segmentLength());
        if (growth < 0) {
            verdict.drop(DropReason.AHEAD_OF_DATA);
            return false;
        }
        DropReason overLimit = bufferLimitFor(peer, growth);
        if (overLimit != null) {
            verdict.drop(overLimit);
            return false;
        }
        grants.beforeUpdate(m, data.segmentLength());
        int fresh = m.accept(data, packet, payloadIndex, growth);
        grants.afterUpdate(m);
        if (fresh == IncomingMessage.ALLOCATION_FAILED) {
            verdict.drop(DropReason.ALLOCATION_FAILED);
            return false;
        }
        if (growth > 0) {
            reserve(m, peer, growth);
        }
        if (fresh < 0) {
            verdict.drop(DropReason.TOO_FRAGMENTED);
            return false;
        }
        if (fresh == 0) {
            verdict.drop(DropReason.DUPLICATE);
            return false;
        }
        metrics.dataBytesIn(fresh);
        return true;
    }

    /** Stops granting to {@code m}, releases its buffer and its reservation. Idempotent. */
    void retire(IncomingMessage m, Peer peer) {
        grants.removed(m);
        m.release();
        long r = m.reservedBytes();
        if (r != 0) {
            m.reservedBytes(0);
            peer.addBufferedBytes(-r);
            bufferedBytes -= r;
        }
    }

    /**
     * A DATA packet of {@code wireBytes} arrived, sent at {@code sentLevel} (-1: not said); any DATA, also one no
     * RPC takes: it went through our switch port.
     */
    public void dataArrived(int sentLevel, int wireBytes, long nowNanos) {
        drain.dataArrived(sentLevel, wireBytes, nowNanos);
    }

    /** A timer tick at {@code nowNanos}, before the RPCs' timers ask {@link #portDrainedFor}. */
    public void tick(long nowNanos) {
        drain.tick(nowNanos);
    }

    /**
     * Whether a silent tick of {@code m}'s sender counts towards a RESEND: our switch port was seen drained during
     * the tick at the lowest level {@code m}'s missing bytes may have been sent at, so they are not waiting there
     * (lost, or not sent yet, which the sender answers with BUSY). Otherwise they may be queued behind higher
     * levels, and a RESEND would draw a copy of packets still on their way. The FIFO share's target is no
     * exception: its queued bytes are not fetched again at the top level either, as every such fetch is a copy.
     */
    boolean portDrainedFor(IncomingMessage m) {
        return drain.drainedDuringLastTick(m.owedLevel());
    }

    /** Runs the grant policy; the GRANTs it issues go out at once. */
    public void scheduleGrants() {
        grants.schedule(grantSender);
    }
}
