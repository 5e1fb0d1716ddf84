package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.outgoing.Transmitter;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;

import java.net.InetSocketAddress;

/**
 * Encodes and sends the control packets (everything but DATA) both halves of the engine send: they leave at
 * once, ahead of the pacer's DATA queue. Owns the scratch space of ACK id lists. Engine thread only.
 */
public final class ControlSender {
    /** RESEND packets per RPC per timer firing (one per hole). */
    private static final int MAX_RESEND_RANGES = 8;

    private final HomaConfig config;
    private final Transmitter transmitter;
    private final PacketEncoder encoder;
    private final EngineClock clock;
    private final UnscheduledCutoffs ownCutoffs;
    /** Scratch for ACK id lists (one packet's worth). */
    private final long[] ackIds;

    public ControlSender(HomaConfig config, Transmitter transmitter, PacketEncoder encoder, EngineClock clock,
                         UnscheduledCutoffs ownCutoffs) {
        this.config = config;
        this.transmitter = transmitter;
        this.encoder = encoder;
        this.clock = clock;
        this.ownCutoffs = ownCutoffs;
        this.ackIds = new long[PacketEncoder.maxAckIds(config.maxUdpPayload())];
    }

    /** We hold no state for {@code wireId}; {@code ageNanos} 0 says "I may have handled it" (a tombstone). */
    void rpcUnknown(InetSocketAddress to, long wireId, long ageNanos) {
        send(to, PacketType.RPC_UNKNOWN, encoder.rpcUnknown(wireId, ageNanos));
    }

    /** We are alive and still working on (or holding back) the RPC. */
    void busy(InetSocketAddress to, long wireId) {
        send(to, PacketType.BUSY, encoder.busy(wireId));
    }

    /** A server with a fully sent response asks the client to confirm it. */
    void needAck(InetSocketAddress to, long wireId) {
        send(to, PacketType.NEED_ACK, encoder.needAck(wireId));
    }

    /** Asks for {@code length} bytes from {@code offset} (again). */
    void resend(InetSocketAddress to, long wireId, int offset, int length, int priority) {
        send(to, PacketType.RESEND, encoder.resend(wireId, offset, length, priority));
    }

    /** Lets the sender of {@code message} send up to {@code offset}, at {@code priority}. */
    void grant(IncomingMessage message, int offset, int priority) {
        MessageOwner owner = message.owner();
        send(owner.peerAddress(), PacketType.GRANT, encoder.grant(owner.wireId(), offset, priority));
    }

    /** Asks {@code rpc}'s peer for up to 8 missing ranges of {@code message} below its granted offset. */
    void requestGaps(MessageOwner rpc, IncomingMessage message) {
        int priority = config.priorityLevels() - 1;
        message.forEachGap(MAX_RESEND_RANGES, (start, end) -> resend(rpc.peerAddress(), rpc.wireId(), start,
                end - start, priority));
    }

    /** A sender used cutoffs other than ours: push ours, at most once per tick per peer. */
    void pushCutoffsIfStale(Peer peer, int versionUsed) {
        if (versionUsed == ownCutoffs.version()) {
            return;
        }
        long now = clock.now();
        long last = peer.lastCutoffsSentNanos();
        if (last != Long.MIN_VALUE && now - last < config.tickNanos()) {
            return;
        }
        peer.lastCutoffsSentNanos(now);
        send(peer.address(), PacketType.CUTOFFS, encoder.cutoffs(ownCutoffs.cutoffByLevel(), ownCutoffs.version()));
    }

    /** Answers a NEED_ACK for {@code clientId}, with every ack owed to {@code peer} (null: none) riding along. */
    void ackWithPending(InetSocketAddress to, long clientId, Peer peer) {
        int n = 0;
        ackIds[n++] = clientId;
        if (peer != null) {
            n = peer.drainAcks(ackIds, n);
        }
        send(to, PacketType.ACK, encoder.ack(clientId, ackIds, n));
    }

    /** {@code peer}'s pending acks are full: sends them and {@code clientId} in one explicit ACK. */
    void flushAcks(Peer peer, long clientId) {
        int n = peer.drainAcks(ackIds, 0);
        ackIds[n++] = clientId;
        send(peer.address(), PacketType.ACK, encoder.ack(0, ackIds, n));
    }

    private void send(InetSocketAddress to, PacketType type, io.netty.buffer.ByteBuf packet) {
        transmitter.sendControl(to, type, packet, clock.now());
    }
}
