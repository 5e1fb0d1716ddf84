package io.homa4j.core.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcListener;
import io.homa4j.core.grant.GrantScheduler;
import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.Metrics;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.outgoing.Transmitter;
import io.homa4j.core.peer.Peer;
import io.homa4j.core.peer.PeerTable;
import io.homa4j.core.priority.UnscheduledCutoffs;
import io.homa4j.core.timer.SilenceRules;
import io.homa4j.core.timer.TickClock;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.InetSocketAddress;

/**
 * What the client and server halves of one engine share: configuration, the sending and granting machinery,
 * peers, counters, the current time, buffer accounting and the per-packet drop verdict. Owned by
 * {@code HomaEngine}; engine thread only. Internal: not part of the API.
 */
public final class EngineContext {
    /** RESEND packets per RPC per timer firing (one per hole). */
    private static final int MAX_RESEND_RANGES = 8;

    public final HomaConfig config;
    public final RpcListener listener;
    public final ByteBufAllocator allocator;
    public final Metrics metrics;
    public final PacketEncoder encoder;
    public final Transmitter transmitter;
    public final GrantScheduler grants;
    public final PeerTable peers;
    public final UnscheduledCutoffs ownCutoffs;
    public final SilenceRules silence;
    public final TickClock tickClock;
    /** Scratch for ACK id lists (one packet's worth). */
    public final long[] ackScratch;
    private final long startNanos;
    private final GrantScheduler.GrantSender grantSender = this::sendGrant;
    private long now;
    private long messageSequence;
    private long bufferedBytes;
    private long outgoingBytes;
    private boolean packetDropped;

    public EngineContext(HomaConfig config, RpcListener listener, ByteBufAllocator allocator, Metrics metrics,
                         PacketEncoder encoder, Transmitter transmitter, GrantScheduler grants, PeerTable peers,
                         UnscheduledCutoffs ownCutoffs, long nowNanos) {
        this.config = config;
        this.listener = listener;
        this.allocator = allocator;
        this.metrics = metrics;
        this.encoder = encoder;
        this.transmitter = transmitter;
        this.grants = grants;
        this.peers = peers;
        this.ownCutoffs = ownCutoffs;
        this.silence = new SilenceRules(config);
        this.tickClock = new TickClock(config.tickNanos());
        this.ackScratch = new long[PacketEncoder.maxAckIds(config.maxUdpPayload())];
        this.startNanos = nowNanos;
        this.now = nowNanos;
    }

    /** The time of the engine call in progress. */
    public long now() {
        return now;
    }

    public void now(long nowNanos) {
        now = nowNanos;
    }

    /** Nanoseconds since the engine started, as RPC_UNKNOWN reports it. */
    public long age() {
        return Math.max(0, now - startNanos);
    }

    public long nextSequence() {
        return messageSequence++;
    }

    // ---------------------------------------------------------------------------------------------- drops

    /** Starts the verdict for one received packet. */
    public void beginPacket() {
        packetDropped = false;
    }

    /** Counts the packet in progress as dropped for {@code reason} (only the first reason counts). */
    public void drop(DropReason reason) {
        if (!packetDropped) {
            packetDropped = true;
            metrics.drop(reason);
        }
    }

    public boolean packetDropped() {
        return packetDropped;
    }

    // ---------------------------------------------------------------------------------------------- buffers

    public long bufferedBytes() {
        return bufferedBytes;
    }

    public long outgoingBytes() {
        return outgoingBytes;
    }

    /** A new outgoing message for {@code owner}, with the unscheduled priority {@code peer}'s cutoffs give. */
    public OutgoingMessage newOutgoing(Rpc owner, Peer peer, ByteBuf payload, int flags) {
        UnscheduledCutoffs cutoffs = peer.cutoffs();
        int length = payload.readableBytes();
        outgoingBytes += length;
        return new OutgoingMessage(owner, payload, flags, messageSequence++, config.unscheduledBytes(),
                cutoffs.levelFor(length, config.priorityLevels()));
    }

    /** Stops sending {@code m} and frees its payload. */
    public void retireOutgoing(OutgoingMessage m) {
        transmitter.remove(m);
        m.release();
        outgoingBytes -= m.length();
    }

    /** Charges {@code bytes} more of {@code m} to the buffer limits. */
    private void reserve(IncomingMessage m, Peer peer, long bytes) {
        m.reservedBytes(m.reservedBytes() + bytes);
        peer.addBufferedBytes(bytes);
        bufferedBytes += bytes;
        metrics.bufferedBytes(bufferedBytes);
    }

    /**
     * Why the first DATA packet of a new incoming message from {@code peer} (null: unknown yet) cannot be kept
     * (a buffer limit, or too far ahead of any data: see {@link IncomingMessage#growthFor}), or null when it can.
     * The message is not created then, so a refused first packet leaves nothing behind.
     */
    public DropReason firstSegmentRefusal(Peer peer, int length, DataHeader data) {
        long growth = IncomingMessage.growthFor(length, 0, 0, data.offset(), data.segmentLength());
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

    /** Stops granting to {@code m}, releases its buffer and its reservation. Idempotent. */
    public void retireIncoming(IncomingMessage m, Peer peer) {
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
     * Accepts one DATA segment into {@code m}, from {@code peer}, growing its buffer (and its reservation) as
     * needed; false (drop counted) when a duplicate or not keepable: too fragmented, too far ahead, over a buffer
     * limit, or no memory. A refused segment changes nothing; the sender's retransmission brings it again.
     */
    public boolean receiveSegment(IncomingMessage m, Peer peer, DataHeader data, ByteBuf packet, int payloadIndex) {
        if (m.length() == 0) {
            if (!m.acceptEmpty()) {
                drop(DropReason.DUPLICATE);
                return false;
            }
            return true;
        }
        long growth = m.growthFor(data.offset(), data.segmentLength());
        if (growth < 0) {
            drop(DropReason.AHEAD_OF_DATA);
            return false;
        }
        DropReason overLimit = bufferLimitFor(peer, growth);
        if (overLimit != null) {
            drop(overLimit);
            return false;
        }
        grants.beforeUpdate(m);
        int fresh = m.accept(data, packet, payloadIndex, growth);
        grants.afterUpdate(m);
        if (fresh == IncomingMessage.ALLOCATION_FAILED) {
            drop(DropReason.ALLOCATION_FAILED);
            return false;
        }
        if (growth > 0) {
            reserve(m, peer, growth);
        }
        if (fresh < 0) {
            drop(DropReason.TOO_FRAGMENTED);
            return false;
        }
        if (fresh == 0) {
            drop(DropReason.DUPLICATE);
            return false;
        }
        metrics.dataBytesIn(fresh);
        return true;
    }

    // ---------------------------------------------------------------------------------------------- control

    /** Sends a control packet to {@code peer} now. */
    public void sendControl(InetSocketAddress peer, PacketType type, ByteBuf packet) {
        transmitter.sendControl(peer, type, packet, now);
    }

    /** Runs the grant policy; the GRANTs it issues go out at once. */
    public void scheduleGrants() {
        grants.schedule(grantSender);
    }

    private void sendGrant(IncomingMessage message, int offset, int priority) {
        Rpc owner = message.owner();
        sendControl(owner.peerAddress(), PacketType.GRANT, encoder.grant(owner.wireId(), offset, priority));
    }

    /** A sender used cutoffs other than ours: push ours, at most once per tick per peer. */
    public void pushCutoffsIfStale(Peer peer, int versionUsed) {
        if (versionUsed == ownCutoffs.version()) {
            return;
        }
        long last = peer.lastCutoffsSentNanos();
        if (last != Long.MIN_VALUE && now - last < config.tickNanos()) {
            return;
        }
        peer.lastCutoffsSentNanos(now);
        sendControl(peer.address(), PacketType.CUTOFFS,
                encoder.cutoffs(ownCutoffs.cutoffByLevel(), ownCutoffs.version()));
    }

    /** Asks {@code rpc}'s peer for up to 8 missing ranges of {@code message} below its granted offset. */
    public void requestGaps(Rpc rpc, IncomingMessage message) {
        int priority = config.priorityLevels() - 1;
        message.forEachGap(MAX_RESEND_RANGES, (start, end) -> sendControl(rpc.peerAddress(), PacketType.RESEND,
                encoder.resend(rpc.wireId(), start, end - start, priority)));
    }

    /**
     * While our grant scheduler holds a message back, tell its sender every {@code SilenceRules.keepAliveTicks}
     * that we still want it (BUSY), so the sender's silence timer does not give the RPC up.
     */
    public void keepAlive(Rpc rpc, int heldTicks) {
        if (heldTicks % silence.keepAliveTicks() == 0) {
            sendControl(rpc.peerAddress(), PacketType.BUSY, encoder.busy(rpc.wireId()));
        }
    }
}
