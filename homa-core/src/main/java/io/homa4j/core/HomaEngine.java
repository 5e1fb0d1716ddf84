package io.homa4j.core;

import io.homa4j.core.grant.GrantScheduler;
import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.Metrics;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.outgoing.Transmitter;
import io.homa4j.core.peer.Peer;
import io.homa4j.core.peer.PeerTable;
import io.homa4j.core.priority.ScheduledPriorities;
import io.homa4j.core.priority.UnscheduledCutoffs;
import io.homa4j.core.rpc.ClientRpc;
import io.homa4j.core.rpc.RpcIds;
import io.homa4j.core.rpc.ServerKey;
import io.homa4j.core.rpc.ServerRpc;
import io.homa4j.core.timer.DeadlineQueue;
import io.homa4j.core.timer.SilenceRules;
import io.homa4j.core.timer.TickClock;
import io.homa4j.core.wire.AckHeader;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.CutoffsHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.ErrorPayload;
import io.homa4j.core.wire.GrantHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.homa4j.core.wire.ResendHeader;
import io.homa4j.core.wire.RpcUnknownHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One Homa endpoint's protocol state machine: client and server RPCs, grants, pacing, retransmission and acks.
 *
 * <p>The engine does no I/O and reads no clock: every method takes {@code nowNanos}, a monotonic time from the
 * caller (the event loop's clock, or the simulator's virtual clock). Packets leave through the {@link PacketSink};
 * results reach the application through the {@link RpcListener}.
 *
 * <p>Threading: not thread-safe. All methods, and all sink and listener upcalls, run on one thread.
 *
 * <p>Ownership: every {@code ByteBuf} passed in is owned by the engine from the call on (released even when the
 * call throws); every {@code ByteBuf} passed out (sink, listener) is owned by the receiver.
 *
 * <p>This class wires the concerns together and dispatches packets; the policies live in the packages
 * {@code wire}, {@code rpc}, {@code outgoing}, {@code incoming}, {@code grant}, {@code priority}, {@code pacer},
 * {@code timer}, {@code peer} and {@code metrics} (see docs/architecture.md).
 */
public final class HomaEngine {
    private static final Logger log = LoggerFactory.getLogger(HomaEngine.class);
    /** Server RPCs whose handler ran and that were freed are remembered this long (count) to refuse replays. */
    private static final int TOMBSTONES = 4096;
    /** Idle peers kept for their cutoffs. */
    private static final int MAX_IDLE_PEERS = 16_384;
    /** RESEND packets per RPC per timer firing (one per hole). */
    private static final int MAX_RESEND_RANGES = 8;

    private final HomaConfig config;
    private final PacketSink sink;
    private final RpcListener listener;
    private final ByteBufAllocator allocator;
    private final long startNanos;
    private final Metrics metrics = new Metrics();
    private final PacketEncoder encoder;
    private final Transmitter transmitter;
    private final GrantScheduler grants;
    private final PeerTable peers;
    private final UnscheduledCutoffs ownCutoffs;
    private final RpcIds ids;
    private final SilenceRules silence;
    private final TickClock tickClock;
    private final DeadlineQueue deadlines = new DeadlineQueue();
    private final Map<Long, ClientRpc> clientRpcs = new HashMap<>();
    private final Map<ServerKey, ServerRpc> serverRpcs = new HashMap<>();
    private final Map<Long, ServerRpc> serverByHandle = new HashMap<>();
    private final LinkedHashMap<ServerKey, Boolean> tombstones = new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ServerKey, Boolean> eldest) {
            return size() > TOMBSTONES;
        }
    };
    private final long[] ackScratch;
    /**
     * A heap copy of the received packet's fixed header, which the flyweights read: the packet itself may be
     * tracked by Netty's leak detector, which records every access, so it is touched once for the copy.
     */
    private final ByteBuf headerCopy = Unpooled.wrappedBuffer(new byte[PacketDecoder.MAX_FIXED_HEADER]);
    private int payloadIndex;
    private final CommonHeader common = new CommonHeader();
    private final DataHeader data = new DataHeader();
    private final GrantHeader grantHeader = new GrantHeader();
    private final ResendHeader resendHeader = new ResendHeader();
    private final RpcUnknownHeader unknownHeader = new RpcUnknownHeader();
    private final CutoffsHeader cutoffsHeader = new CutoffsHeader();
    private final AckHeader ackHeader = new AckHeader();
    private final long stateLossGraceNanos;
    private long nextServerHandle = 1;
    private long messageSequence;
    private long bufferedBytes;
    private long outgoingBytes;
    private long now;
    private boolean closed;
    private boolean packetDropped;
    private long packetsHandled;

    /**
     * @param config   protocol parameters
     * @param sink     where packets go
     * @param listener where requests, responses and failures go
     * @param nowNanos current time
     */
    public HomaEngine(HomaConfig config, PacketSink sink, RpcListener listener, long nowNanos) {
        this(config, sink, listener, ByteBufAllocator.DEFAULT, nowNanos);
    }

    /**
     * @param allocator where outgoing packets and multi-packet incoming messages are allocated
     */
    public HomaEngine(HomaConfig config, PacketSink sink, RpcListener listener, ByteBufAllocator allocator,
                      long nowNanos) {
        this.config = Objects.requireNonNull(config, "config");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.startNanos = nowNanos;
        this.now = nowNanos;
        this.ids = new RpcIds(nowNanos);
        this.encoder = new PacketEncoder(allocator);
        this.transmitter = new Transmitter(config, sink, encoder, metrics, nowNanos);
        this.ownCutoffs = UnscheduledCutoffs.fromConfig(config, 1);
        this.peers = new PeerTable(MAX_IDLE_PEERS, UnscheduledCutoffs.fromConfig(config, 0));
        int maxPayload = transmitter.maxPayload();
        int fifoIncrement = (int) Math.max(maxPayload, Math.min(config.unscheduledBytes(),
                config.maxIncomingBytes() / 2));
        this.grants = new GrantScheduler(config.maxOvercommit(), config.maxIncomingBytes(),
                config.fifoGrantFraction(), maxPayload, fifoIncrement,
                new ScheduledPriorities(Math.min(ownCutoffs.highestScheduledLevel(), config.priorityLevels() - 1)),
                metrics);
        this.silence = new SilenceRules(config);
        this.stateLossGraceNanos = config.rttMicros() * 500L;
        this.tickClock = new TickClock(config.tickNanos());
        this.ackScratch = new long[PacketEncoder.maxAckIds(config.maxUdpPayload())];
    }

    // ------------------------------------------------------------------------------------------------ client API

    /**
     * Starts a client RPC.
     *
     * @param server        the server's address
     * @param request       the request payload (may be empty); owned by the engine from now on
     * @param deadlineNanos absolute time (same clock as nowNanos) after which the call fails with
     *                      DEADLINE_EXCEEDED, or {@code Long.MAX_VALUE} for none
     * @return the RPC id (even), used in {@link RpcListener#onResponse} / {@link RpcListener#onCallFailed}
     * @throws RpcRejectedException when the call cannot start (too large, too many outstanding, closed)
     */
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
        Objects.requireNonNull(request, "request");
        if (server == null) {
            request.release();
            throw new NullPointerException("server");
        }
        now = nowNanos;
        if (closed) {
            request.release();
            throw new RpcRejectedException(ErrorCode.CANCELLED, "engine closed");
        }
        int length = request.readableBytes();
        if (length > config.maxMessageBytes()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.MESSAGE_TOO_LARGE,
                    "request of " + length + " bytes exceeds maxMessageBytes " + config.maxMessageBytes());
        }
        if (clientRpcs.size() >= config.maxOutstandingRpcs()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.RESOURCE_EXHAUSTED,
                    "maxOutstandingRpcs (" + config.maxOutstandingRpcs() + ") calls already outstanding");
        }
        long id = ids.nextClientId();
        Peer peer = peers.getOrCreate(server);
        peer.rpcOpened();
        ClientRpc rpc = new ClientRpc(id, peer, deadlineNanos, nowNanos);
        OutgoingMessage message = newOutgoing(rpc, peer, request, 0);
        rpc.request(message);
        clientRpcs.put(id, rpc);
        deadlines.add(rpc);
        metrics.clientCall();
        tickClock.arm(nowNanos);
        transmitter.add(message);
        transmitter.transmit(nowNanos);
        transmitter.flush();
        return id;
    }

    /** Abandons a client RPC and frees its state; the listener is not called for it. Unknown ids are ignored. */
    public void abort(long rpcId, long nowNanos) {
        now = nowNanos;
        ClientRpc rpc = clientRpcs.get(rpcId);
        if (rpc == null) {
            return;
        }
        freeClient(rpc);
        metrics.clientAborted();
    }

    // ------------------------------------------------------------------------------------------------ server API

    /**
     * Sends the response of a server RPC delivered by {@link RpcListener#onRequest}.
     *
     * <p>A response longer than {@link HomaConfig#maxMessageBytes()} is released and the client gets
     * MESSAGE_TOO_LARGE instead (the handle counts as answered, so this returns true).
     *
     * @return false (and the response is released) when the handle is no longer live
     */
    public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
        Objects.requireNonNull(response, "response");
        now = nowNanos;
        ServerRpc rpc = serverByHandle.get(serverHandle);
        if (closed || rpc == null || rpc.state() != ServerRpc.State.HANDLING) {
            response.release();
            metrics.deadHandleReply();
            return false;
        }
        int length = response.readableBytes();
        if (length > config.maxMessageBytes()) {
            response.release();
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.MESSAGE_TOO_LARGE, "response of " + length
                    + " bytes exceeds the server's maxMessageBytes " + config.maxMessageBytes()),
                    DataHeader.FLAG_ERROR, nowNanos);
            return true;
        }
        startResponse(rpc, response, 0, nowNanos);
        return true;
    }

    /** Fails a server RPC: the client gets HANDLER_ERROR with {@code message}. Same liveness rule as reply. */
    public boolean replyError(long serverHandle, String message, long nowNanos) {
        now = nowNanos;
        ServerRpc rpc = serverByHandle.get(serverHandle);
        if (closed || rpc == null || rpc.state() != ServerRpc.State.HANDLING) {
            metrics.deadHandleReply();
            return false;
        }
        startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.HANDLER_ERROR, message),
                DataHeader.FLAG_ERROR, nowNanos);
        return true;
    }

    private void startResponse(ServerRpc rpc, ByteBuf payload, int flags, long nowNanos) {
        OutgoingMessage message = newOutgoing(rpc, rpc.client(), payload, flags);
        rpc.response(message);
        rpc.state(ServerRpc.State.RESPONDING);
        rpc.silentTicks = 0;
        metrics.serverReplied();
        transmitter.add(message);
        transmitter.transmit(nowNanos);
        transmitter.flush();
    }

    private OutgoingMessage newOutgoing(io.homa4j.core.rpc.Rpc owner, Peer peer, ByteBuf payload, int flags) {
        UnscheduledCutoffs cutoffs = peer.cutoffs();
        int length = payload.readableBytes();
        outgoingBytes += length;
        return new OutgoingMessage(owner, payload, flags, messageSequence++, config.unscheduledBytes(),
                cutoffs.levelFor(length, config.priorityLevels()), cutoffs.version());
    }

    // ------------------------------------------------------------------------------------------------ packets

    /**
     * Feeds one received UDP payload. Malformed, spoofed or unexpected packets are dropped and counted; this
     * method never throws because of packet contents. The engine releases {@code packet}.
     */
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        now = nowNanos;
        packetDropped = false;
        try {
            if (closed) {
                metrics.rawBytesIn(packet.readableBytes());
                drop(DropReason.CLOSED);
                return;
            }
            int length = packet.readableBytes();
            packet.getBytes(packet.readerIndex(), headerCopy, 0, Math.min(length, PacketDecoder.MAX_FIXED_HEADER));
            DropReason invalid = PacketDecoder.check(headerCopy, 0, length);
            if (invalid != null) {
                metrics.rawBytesIn(length);
                drop(invalid);
                return;
            }
            int start = 0;
            payloadIndex = packet.readerIndex() + DataHeader.LENGTH;
            PacketType type = common.wrap(headerCopy, start).type();
            metrics.packetIn(type, packet.readableBytes());
            switch (type) {
                case DATA:
                    onData(from, packet, start);
                    break;
                case GRANT:
                    onGrant(from, grantHeader.wrap(headerCopy, start));
                    break;
                case RESEND:
                    onResend(from, resendHeader.wrap(headerCopy, start));
                    break;
                case RPC_UNKNOWN:
                    onRpcUnknown(from, unknownHeader.wrap(headerCopy, start));
                    break;
                case BUSY:
                    onBusy(from, common.rpcId());
                    break;
                case CUTOFFS:
                    onCutoffs(from, cutoffsHeader.wrap(headerCopy, start));
                    break;
                case NEED_ACK:
                    onNeedAck(from, common.rpcId());
                    break;
                case ACK:
                    onAck(from, ackHeader.wrap(packet, packet.readerIndex())); // ids beyond the fixed header
                    break;
                default:
                    drop(DropReason.UNKNOWN_TYPE);
            }
            if (!closed) {
                grants.schedule(this::sendGrant);
                transmitter.transmit(nowNanos);
            }
        } catch (RuntimeException e) {
            // A bug, never packet contents: keep the endpoint alive, count it so tests catch it.
            log.error("internal error handling a packet from {}", from, e);
            drop(DropReason.INTERNAL_ERROR);
        } finally {
            packet.release();
            if (!packetDropped) {
                packetsHandled++;
            }
            transmitter.flush();
        }
    }

    private void drop(DropReason reason) {
        if (!packetDropped) {
            packetDropped = true;
            metrics.drop(reason);
        }
    }

    private void onData(InetSocketAddress from, ByteBuf packet, int start) {
        data.wrap(headerCopy, start);
        long wireId = data.rpcId();
        if (RpcIds.fromClient(wireId)) {
            onRequestData(from, wireId, packet);
        } else {
            onResponseData(from, RpcIds.localId(wireId), packet);
        }
    }

    private void onRequestData(InetSocketAddress from, long clientId, ByteBuf packet) {
        if (clientId == 0 || data.error()) {
            drop(DropReason.MALFORMED);
            return;
        }
        long piggybackedAck = data.ackId();
        if (piggybackedAck != 0 && piggybackedAck != clientId) {
            ackServerRpc(from, piggybackedAck);
        }
        ServerKey key = new ServerKey(from, clientId);
        ServerRpc rpc = serverRpcs.get(key);
        int length = data.messageLength();
        if (rpc == null) {
            rpc = newServerRpc(key, length);
            if (rpc == null) {
                return;
            }
        } else {
            rpc.silentTicks = 0;
            if (rpc.state() != ServerRpc.State.RECEIVING) {
                drop(DropReason.DUPLICATE);
                return;
            }
            if (rpc.request().length() != length) {
                drop(DropReason.INCONSISTENT);
                return;
            }
        }
        pushCutoffsIfStale(rpc.client(), data.cutoffsVersion());
        IncomingMessage request = rpc.request();
        if (!receiveSegment(request, packet) || !request.complete()) {
            return;
        }
        ByteBuf payload = request.takePayload(allocator);
        retireIncoming(request, rpc.client());
        rpc.request(null);
        rpc.state(ServerRpc.State.HANDLING);
        rpc.silentTicks = 0;
        metrics.requestDelivered();
        deliverRequest(rpc, payload);
    }

    /** A server RPC for a request's first packet, or null (and the drop counted) when it cannot be created. */
    private ServerRpc newServerRpc(ServerKey key, int length) {
        if (tombstones.containsKey(key)) {
            drop(DropReason.STALE); // a delayed duplicate of a request already handled and acknowledged
            return null;
        }
        if (serverRpcs.size() >= config.maxServerRpcs()) {
            drop(DropReason.SERVER_RPC_LIMIT);
            return null;
        }
        boolean tooLarge = length > config.maxMessageBytes();
        long reservation = tooLarge ? 0 : IncomingMessage.reservationFor(length, data.segmentLength());
        Peer existing = peers.get(key.client());
        if (reservation > 0 && existing != null
                && existing.bufferedBytes() + reservation > config.maxBufferedBytesPerPeer()
                || reservation > config.maxBufferedBytesPerPeer()) {
            drop(DropReason.PEER_BUFFER_LIMIT);
            return null;
        }
        if (bufferedBytes + reservation > config.maxBufferedBytesTotal()) {
            drop(DropReason.TOTAL_BUFFER_LIMIT);
            return null;
        }
        Peer peer = peers.getOrCreate(key.client());
        peer.rpcOpened();
        ServerRpc rpc = new ServerRpc(nextServerHandle++, key, peer);
        serverRpcs.put(key, rpc);
        serverByHandle.put(rpc.handle(), rpc);
        tickClock.arm(now);
        if (tooLarge) {
            // Answer with a typed error instead of silence, so the client learns why at once.
            drop(DropReason.MESSAGE_TOO_LARGE);
            rpc.state(ServerRpc.State.HANDLING);
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.MESSAGE_TOO_LARGE, "request of " + length
                    + " bytes exceeds the server's maxMessageBytes " + config.maxMessageBytes()),
                    DataHeader.FLAG_ERROR, now);
            return null;
        }
        IncomingMessage request = new IncomingMessage(rpc, length, false, data.incoming(), messageSequence++);
        reserve(request, peer, reservation);
        rpc.request(request);
        grants.added(request);
        return rpc;
    }

    private void onResponseData(InetSocketAddress from, long clientId, ByteBuf packet) {
        ClientRpc rpc = clientRpcs.get(clientId);
        if (rpc == null) {
            drop(DropReason.UNKNOWN_RPC);
            // Tell the server to let go (the call was aborted, failed or already completed).
            transmitter.sendControl(from, PacketType.RPC_UNKNOWN, encoder.rpcUnknown(clientId, age()), now);
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            drop(DropReason.WRONG_PEER);
            return;
        }
        rpc.silentTicks = 0;
        int length = data.messageLength();
        IncomingMessage response = rpc.response();
        if (response == null) {
            if (length > config.maxMessageBytes()) {
                drop(DropReason.MESSAGE_TOO_LARGE);
                failClient(rpc, ErrorCode.MESSAGE_TOO_LARGE, "response of " + length
                        + " bytes exceeds maxMessageBytes " + config.maxMessageBytes(), false);
                return;
            }
            long reservation = IncomingMessage.reservationFor(length, data.segmentLength());
            Peer peer = rpc.server();
            if (peer.bufferedBytes() + reservation > config.maxBufferedBytesPerPeer()) {
                drop(DropReason.PEER_BUFFER_LIMIT);
                return;
            }
            if (bufferedBytes + reservation > config.maxBufferedBytesTotal()) {
                drop(DropReason.TOTAL_BUFFER_LIMIT);
                return;
            }
            response = new IncomingMessage(rpc, length, data.error(), data.incoming(), messageSequence++);
            reserve(response, peer, reservation);
            rpc.response(response);
            grants.added(response);
            // A response means the server has the whole request: stop sending it and free it.
            OutgoingMessage request = rpc.request();
            if (request != null) {
                transmitter.remove(request);
                request.release();
                outgoingBytes -= request.length();
                rpc.request(null);
            }
        } else if (response.length() != length || response.error() != data.error()) {
            drop(DropReason.INCONSISTENT);
            return;
        }
        pushCutoffsIfStale(rpc.server(), data.cutoffsVersion());
        if (!receiveSegment(response, packet) || !response.complete()) {
            return;
        }
        completeClient(rpc, response);
    }

    /** Accepts one DATA segment into {@code m}; false when it was a duplicate or could not be kept. */
    private boolean receiveSegment(IncomingMessage m, ByteBuf packet) {
        if (m.length() == 0) {
            if (!m.acceptEmpty()) {
                drop(DropReason.DUPLICATE);
                return false;
            }
            return true;
        }
        grants.beforeUpdate(m);
        int fresh = m.accept(data, packet, payloadIndex);
        grants.afterUpdate(m);
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

    private void onGrant(InetSocketAddress from, GrantHeader grant) {
        long wireId = grant.rpcId();
        OutgoingMessage message = outgoingFor(from, wireId);
        if (message == null) {
            return;
        }
        transmitter.grant(message, grant.offset(), Math.min(grant.priority(), config.priorityLevels() - 1));
    }

    /** The outgoing message a GRANT or RESEND from {@code from} refers to; null (drop counted) if none. */
    private OutgoingMessage outgoingFor(InetSocketAddress from, long wireId) {
        if (RpcIds.fromClient(wireId)) {
            ServerRpc rpc = serverRpcs.get(new ServerKey(from, wireId));
            if (rpc == null) {
                drop(DropReason.UNKNOWN_RPC);
                return null;
            }
            rpc.silentTicks = 0;
            if (rpc.response() == null) {
                drop(DropReason.STALE);
                return null;
            }
            return rpc.response();
        }
        ClientRpc rpc = clientRpcs.get(RpcIds.localId(wireId));
        if (rpc == null) {
            drop(DropReason.UNKNOWN_RPC);
            return null;
        }
        if (!from.equals(rpc.peerAddress())) {
            drop(DropReason.WRONG_PEER);
            return null;
        }
        rpc.silentTicks = 0;
        if (rpc.request() == null) {
            drop(DropReason.STALE);
            return null;
        }
        return rpc.request();
    }

    private void onResend(InetSocketAddress from, ResendHeader resend) {
        long wireId = resend.rpcId();
        int priority = Math.min(resend.priority(), config.priorityLevels() - 1);
        if (RpcIds.fromClient(wireId)) {
            ServerKey key = new ServerKey(from, wireId);
            ServerRpc rpc = serverRpcs.get(key);
            if (rpc == null) {
                drop(DropReason.UNKNOWN_RPC);
                // Age 0 for a call we handled and forgot: "I may have run it", so the client never re-sends it.
                long age = tombstones.containsKey(key) ? 0 : age();
                transmitter.sendControl(from, PacketType.RPC_UNKNOWN, encoder.rpcUnknown(wireId ^ 1, age), now);
                return;
            }
            rpc.silentTicks = 0;
            switch (rpc.state()) {
                case RECEIVING: {
                    IncomingMessage request = rpc.request();
                    if (request.granted() > request.initialGranted()) {
                        // The client waits for a grant: ours may have been lost, repeat it.
                        int p = Math.max(0, request.lastGrantPriority());
                        transmitter.sendControl(from, PacketType.GRANT,
                                encoder.grant(rpc.wireId(), request.granted(), p), now);
                    } else {
                        transmitter.sendControl(from, PacketType.BUSY, encoder.busy(rpc.wireId()), now);
                    }
                    break;
                }
                case HANDLING:
                    transmitter.sendControl(from, PacketType.BUSY, encoder.busy(rpc.wireId()), now);
                    break;
                default:
                    transmitter.resend(rpc.response(), resend.offset(), resend.length(), priority);
            }
            return;
        }
        ClientRpc rpc = clientRpcs.get(RpcIds.localId(wireId));
        if (rpc == null) {
            drop(DropReason.UNKNOWN_RPC);
            transmitter.sendControl(from, PacketType.RPC_UNKNOWN,
                    encoder.rpcUnknown(RpcIds.localId(wireId), age()), now);
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            drop(DropReason.WRONG_PEER);
            return;
        }
        rpc.silentTicks = 0;
        if (rpc.request() == null) {
            drop(DropReason.STALE);
            return;
        }
        transmitter.resend(rpc.request(), resend.offset(), resend.length(), priority);
    }

    private void onRpcUnknown(InetSocketAddress from, RpcUnknownHeader unknown) {
        long wireId = unknown.rpcId();
        if (RpcIds.fromClient(wireId)) {
            ServerRpc rpc = serverRpcs.get(new ServerKey(from, wireId));
            if (rpc == null) {
                drop(DropReason.UNKNOWN_RPC);
                return;
            }
            freeServer(rpc);
            metrics.serverFreedByPeer();
            return;
        }
        ClientRpc rpc = clientRpcs.get(RpcIds.localId(wireId));
        if (rpc == null) {
            drop(DropReason.UNKNOWN_RPC);
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            drop(DropReason.WRONG_PEER);
            return;
        }
        serverLostState(rpc, unknown.ageNanos());
    }

    /**
     * The server has no state for {@code rpc}. Re-sending is safe only if the server cannot have run the
     * handler: either it never had the whole request (we have not finished sending it in this attempt), or it
     * has been up since before this attempt began (it keeps the state of every request it received until we
     * ACK, so it never got it).
     */
    private void serverLostState(ClientRpc rpc, long serverAgeNanos) {
        if (rpc.response() != null) {
            failClient(rpc, ErrorCode.UNAVAILABLE, "server lost the RPC's state while responding", false);
            return;
        }
        // The server's age is read one (unknown) one-way delay late, so "older than the attempt" is judged with
        // a grace of half the configured RTT; see HomaConfig#retryOnServerStateLoss for the resulting window.
        long attemptAge = now - rpc.attemptStartNanos();
        boolean serverOlder = serverAgeNanos >= 0 && serverAgeNanos + stateLossGraceNanos >= attemptAge;
        boolean retrySafe = !rpc.requestFullySent() || serverOlder;
        if (retrySafe && config.retryOnServerStateLoss() && rpc.restarts() < silence.maxRestarts()) {
            rpc.restart(now);
            transmitter.rewind(rpc.request());
            metrics.clientRestarted();
            return;
        }
        failClient(rpc, ErrorCode.UNAVAILABLE, retrySafe ? "server has no state for the call (request not delivered)"
                : "server lost the call's state; it may have handled the request", retrySafe);
    }

    private void onBusy(InetSocketAddress from, long wireId) {
        if (RpcIds.fromClient(wireId)) {
            // a client whose grant scheduler holds our response back: it still wants it
            ServerRpc rpc = serverRpcs.get(new ServerKey(from, wireId));
            if (rpc == null) {
                drop(DropReason.UNKNOWN_RPC);
                return;
            }
            rpc.silentTicks = 0;
            return;
        }
        ClientRpc rpc = clientRpcs.get(RpcIds.localId(wireId));
        if (rpc == null) {
            drop(DropReason.UNKNOWN_RPC);
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            drop(DropReason.WRONG_PEER);
            return;
        }
        rpc.silentTicks = 0;
    }

    private void onNeedAck(InetSocketAddress from, long wireId) {
        if (RpcIds.fromClient(wireId)) {
            drop(DropReason.MALFORMED);
            return;
        }
        long clientId = RpcIds.localId(wireId);
        ClientRpc rpc = clientRpcs.get(clientId);
        if (rpc != null && from.equals(rpc.peerAddress())) {
            rpc.silentTicks = 0; // still receiving the response; our RESENDs will fetch what is missing
            return;
        }
        int n = 0;
        ackScratch[n++] = clientId;
        Peer peer = peers.get(from);
        if (peer != null) {
            n = peer.drainAcks(ackScratch, n);
        }
        transmitter.sendControl(from, PacketType.ACK, encoder.ack(clientId, ackScratch, n), now);
    }

    private void onAck(InetSocketAddress from, AckHeader ack) {
        if (!RpcIds.fromClient(ack.rpcId())) {
            drop(DropReason.MALFORMED);
            return;
        }
        for (int i = 0, n = ack.count(); i < n; i++) {
            ackServerRpc(from, ack.ackedId(i));
        }
    }

    private void ackServerRpc(InetSocketAddress from, long clientId) {
        if (!RpcIds.fromClient(clientId)) {
            return;
        }
        ServerRpc rpc = serverRpcs.get(new ServerKey(from, clientId));
        if (rpc != null && rpc.state() != ServerRpc.State.RECEIVING) {
            freeServer(rpc);
            metrics.serverFreedByAck();
        }
    }

    private void onCutoffs(InetSocketAddress from, CutoffsHeader cutoffs) {
        Peer peer = peers.get(from);
        if (peer == null) {
            drop(DropReason.UNKNOWN_RPC); // we never talked to it: nothing to use the cutoffs for
            return;
        }
        int[] byLevel = new int[CutoffsHeader.LEVELS];
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            byLevel[level] = cutoffs.cutoff(level);
        }
        UnscheduledCutoffs updated = new UnscheduledCutoffs(byLevel, cutoffs.cutoffsVersion());
        if (updated.version() != peer.cutoffs().version() || !updated.sameCutoffs(peer.cutoffs())) {
            peer.cutoffs(updated);
            metrics.cutoffsUpdated();
        }
    }

    /** A sender used cutoffs other than ours: push ours, at most once per tick per peer. */
    private void pushCutoffsIfStale(Peer peer, int versionUsed) {
        if (versionUsed == ownCutoffs.version()) {
            return;
        }
        long last = peer.lastCutoffsSentNanos();
        if (last != Long.MIN_VALUE && now - last < config.tickNanos()) {
            return;
        }
        peer.lastCutoffsSentNanos(now);
        transmitter.sendControl(peer.address(), PacketType.CUTOFFS,
                encoder.cutoffs(ownCutoffs.cutoffByLevel(), ownCutoffs.version()), now);
    }

    private void sendGrant(IncomingMessage message, int offset, int priority) {
        io.homa4j.core.rpc.Rpc owner = message.owner();
        transmitter.sendControl(owner.peerAddress(), PacketType.GRANT,
                encoder.grant(owner.wireId(), offset, priority), now);
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    private void deliverRequest(ServerRpc rpc, ByteBuf payload) {
        try {
            listener.onRequest(rpc.handle(), rpc.peerAddress(), payload);
        } catch (RuntimeException e) {
            metrics.listenerError();
            log.warn("RpcListener.onRequest threw for {}", rpc, e);
            if (serverByHandle.get(rpc.handle()) == rpc && rpc.state() == ServerRpc.State.HANDLING) {
                replyError(rpc.handle(), "handler threw " + e, now);
            }
        }
    }

    private void completeClient(ClientRpc rpc, IncomingMessage response) {
        ByteBuf payload = response.takePayload(allocator);
        Peer peer = rpc.server();
        freeClient(rpc);
        queueAck(peer, rpc.id());
        if (response.error()) {
            try {
                ErrorCode code = ErrorPayload.code(payload);
                String text = ErrorPayload.description(payload);
                metrics.clientFailed(code);
                notifyFailure(rpc.id(), new RpcFailure(code, text, false));
            } finally {
                payload.release();
            }
            return;
        }
        metrics.clientCompleted();
        try {
            listener.onResponse(rpc.id(), payload);
        } catch (RuntimeException e) {
            metrics.listenerError();
            log.warn("RpcListener.onResponse threw for RPC {}", rpc.id(), e);
        }
    }

    private void queueAck(Peer peer, long clientId) {
        if (peer.addPendingAck(clientId)) {
            return;
        }
        int n = peer.drainAcks(ackScratch, 0);
        ackScratch[n++] = clientId;
        transmitter.sendControl(peer.address(), PacketType.ACK, encoder.ack(0, ackScratch, n), now);
    }

    private void failClient(ClientRpc rpc, ErrorCode code, String message, boolean retrySafe) {
        freeClient(rpc);
        metrics.clientFailed(code);
        notifyFailure(rpc.id(), new RpcFailure(code, message, retrySafe));
    }

    private void notifyFailure(long rpcId, RpcFailure failure) {
        try {
            listener.onCallFailed(rpcId, failure);
        } catch (RuntimeException e) {
            metrics.listenerError();
            log.warn("RpcListener.onCallFailed threw for RPC {}", rpcId, e);
        }
    }

    private void freeClient(ClientRpc rpc) {
        clientRpcs.remove(rpc.id());
        deadlines.remove(rpc);
        OutgoingMessage request = rpc.request();
        if (request != null) {
            transmitter.remove(request);
            request.release();
            outgoingBytes -= request.length();
            rpc.request(null);
        }
        IncomingMessage response = rpc.response();
        if (response != null) {
            retireIncoming(response, rpc.server());
        }
        rpc.server().rpcClosed();
    }

    private void freeServer(ServerRpc rpc) {
        serverRpcs.remove(rpc.key());
        serverByHandle.remove(rpc.handle());
        if (rpc.state() != ServerRpc.State.RECEIVING) {
            tombstones.put(rpc.key(), Boolean.TRUE);
        }
        IncomingMessage request = rpc.request();
        if (request != null) {
            retireIncoming(request, rpc.client());
            rpc.request(null);
        }
        OutgoingMessage response = rpc.response();
        if (response != null) {
            transmitter.remove(response);
            response.release();
            outgoingBytes -= response.length();
            rpc.response(null);
        }
        rpc.client().rpcClosed();
    }

    private void reserve(IncomingMessage m, Peer peer, long bytes) {
        m.reservedBytes(bytes);
        peer.addBufferedBytes(bytes);
        bufferedBytes += bytes;
        metrics.bufferedBytes(bufferedBytes);
    }

    /** Stops granting to {@code m}, releases its buffer and its reservation. Idempotent. */
    private void retireIncoming(IncomingMessage m, Peer peer) {
        grants.removed(m);
        m.release();
        long r = m.reservedBytes();
        if (r != 0) {
            m.reservedBytes(0);
            peer.addBufferedBytes(-r);
            bufferedBytes -= r;
        }
    }

    private long age() {
        return Math.max(0, now - startNanos);
    }

    // ------------------------------------------------------------------------------------------------ timers

    /** Runs timers and the pacer: sends what is due, fires RESEND, NEED_ACK and timeouts. */
    public void poll(long nowNanos) {
        now = nowNanos;
        if (closed) {
            return;
        }
        ClientRpc expired;
        while ((expired = deadlines.pollExpired(nowNanos)) != null) {
            if (clientRpcs.get(expired.id()) == expired) {
                failClient(expired, ErrorCode.DEADLINE_EXCEEDED, "deadline passed", expired.request() != null
                        && !expired.requestFullySent());
            }
        }
        if (tickClock.due(nowNanos)) {
            tick();
            tickClock.ticked(nowNanos, !clientRpcs.isEmpty() || !serverRpcs.isEmpty());
        }
        if (!closed) {
            grants.schedule(this::sendGrant);
            transmitter.transmit(nowNanos);
        }
        transmitter.flush();
    }

    private void tick() {
        // Copies: failing a call runs the listener, which may start or abort calls.
        for (ClientRpc rpc : new ArrayList<>(clientRpcs.values())) {
            if (clientRpcs.get(rpc.id()) == rpc) {
                tickClient(rpc);
            }
        }
        for (ServerRpc rpc : new ArrayList<>(serverRpcs.values())) {
            if (serverRpcs.get(rpc.key()) == rpc) {
                tickServer(rpc);
            }
        }
    }

    private void tickClient(ClientRpc rpc) {
        OutgoingMessage request = rpc.request();
        IncomingMessage response = rpc.response();
        if (request != null && request.hasUnsentGrantedBytes()) {
            rpc.silentTicks = 0; // we are the ones holding it up (pacer, SRPT), not the server
            return;
        }
        if (response != null && response.outstandingBytes() == 0) {
            rpc.silentTicks = 0; // everything granted arrived: waiting for our own grant scheduler
            keepAlive(rpc, ++rpc.heldTicks);
            return;
        }
        rpc.heldTicks = 0;
        rpc.silentTicks++;
        if (silence.abortDue(rpc.silentTicks)) {
            failClient(rpc, ErrorCode.UNAVAILABLE, "no word from the server for " + rpc.silentTicks + " ticks",
                    response == null && !rpc.requestFullySent());
            return;
        }
        if (!silence.resendDue(rpc.silentTicks)) {
            return;
        }
        int top = config.priorityLevels() - 1;
        if (response == null) {
            // Nothing back yet: ask for the response's start; the server answers BUSY, GRANT, data or RPC_UNKNOWN.
            transmitter.sendControl(rpc.peerAddress(), PacketType.RESEND,
                    encoder.resend(rpc.wireId(), 0, transmitter.maxPayload(), top), now);
        } else {
            requestGaps(rpc, response, top);
        }
    }

    /**
     * While our grant scheduler holds a message back, tell its sender every resendTicks that we still want it
     * (BUSY), so the sender's silence timer does not give the RPC up.
     */
    private void keepAlive(io.homa4j.core.rpc.Rpc rpc, int heldTicks) {
        if (heldTicks % config.resendTicks() == 0) {
            transmitter.sendControl(rpc.peerAddress(), PacketType.BUSY, encoder.busy(rpc.wireId()), now);
        }
    }

    private void requestGaps(io.homa4j.core.rpc.Rpc rpc, IncomingMessage message, int priority) {
        message.forEachGap(MAX_RESEND_RANGES, (start, end) -> transmitter.sendControl(rpc.peerAddress(),
                PacketType.RESEND, encoder.resend(rpc.wireId(), start, end - start, priority), now));
    }

    private void tickServer(ServerRpc rpc) {
        switch (rpc.state()) {
            case RECEIVING: {
                IncomingMessage request = rpc.request();
                if (request.outstandingBytes() == 0) {
                    rpc.silentTicks = 0; // waiting for our own grant scheduler, not for the client
                    keepAlive(rpc, ++rpc.heldTicks);
                    return;
                }
                rpc.heldTicks = 0;
                rpc.silentTicks++;
                if (silence.abortDue(rpc.silentTicks)) {
                    freeServer(rpc);
                    metrics.serverExpired();
                } else if (silence.resendDue(rpc.silentTicks)) {
                    requestGaps(rpc, request, config.priorityLevels() - 1);
                }
                return;
            }
            case HANDLING:
                rpc.silentTicks = 0;
                return;
            case RESPONDING:
                if (rpc.response().hasUnsentGrantedBytes()) {
                    rpc.silentTicks = 0;
                    return;
                }
                rpc.silentTicks++;
                if (silence.abortDue(rpc.silentTicks)) {
                    freeServer(rpc);
                    metrics.serverExpired();
                }
                return;
            default: // AWAITING_ACK
                if (rpc.response().hasUnsentGrantedBytes()) {
                    rpc.silentTicks = 0; // retransmissions still queued
                    return;
                }
                rpc.silentTicks++;
                if (silence.abortDue(rpc.silentTicks)) {
                    freeServer(rpc);
                    metrics.serverExpired();
                } else if (silence.needAckDue(rpc.silentTicks)) {
                    transmitter.sendControl(rpc.peerAddress(), PacketType.NEED_ACK, encoder.needAck(rpc.wireId()),
                            now);
                }
        }
    }

    /**
     * The earliest time at which {@link #poll} has work, or {@code Long.MAX_VALUE} when none is pending.
     * Calling poll earlier or more often is harmless.
     */
    public long nextWakeNanos() {
        if (closed) {
            return Long.MAX_VALUE;
        }
        return Math.min(tickClock.nextTickNanos(), Math.min(deadlines.nextDeadlineNanos(),
                transmitter.nextWakeNanos()));
    }

    /**
     * Fails every outstanding client RPC with CANCELLED (through the listener), drops every server RPC and
     * releases every buffer. Later calls are rejected; later packets are dropped.
     */
    public void close(long nowNanos) {
        now = nowNanos;
        if (closed) {
            return;
        }
        closed = true;
        for (ServerRpc rpc : new ArrayList<>(serverRpcs.values())) {
            freeServer(rpc);
        }
        for (ClientRpc rpc : new ArrayList<>(clientRpcs.values())) {
            if (clientRpcs.get(rpc.id()) == rpc) {
                failClient(rpc, ErrorCode.CANCELLED, "endpoint closed", rpc.response() == null
                        && !rpc.requestFullySent());
            }
        }
        // Listeners may have tried to start calls (rejected) or reply (dead handles); nothing is left.
        deadlines.clear();
        tombstones.clear();
        transmitter.flush();
    }

    // ------------------------------------------------------------------------------------------------ introspection

    /** An immutable copy of the counters and current gauges. */
    public MetricsSnapshot metrics() {
        return metrics.snapshot(clientRpcs.size(), serverRpcs.size(), bufferedBytes, outgoingBytes);
    }

    public HomaConfig config() {
        return config;
    }

    /** Client RPCs alive (started, not yet completed, failed or aborted). */
    public int clientRpcCount() {
        return clientRpcs.size();
    }

    /** Server RPCs alive (from the first request packet until ACK or expiry). */
    public int serverRpcCount() {
        return serverRpcs.size();
    }

    /** Bytes reserved for partially received messages. */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /** Bytes of requests and responses held for (re)transmission. */
    public long outgoingBytes() {
        return outgoingBytes;
    }

    /** Granted-but-not-received bytes over all incoming messages. */
    public long incomingOutstandingBytes() {
        return grants.outstandingBytes();
    }

    /** Incoming messages currently holding scheduled grants (at most maxOvercommit). */
    public int grantedMessageCount() {
        return grants.grantedMessages();
    }

    /** Received packets that were processed (not dropped); with the drop counters this accounts for every packet. */
    public long packetsHandled() {
        return packetsHandled;
    }

    /** Estimated own transmit queue, in nanoseconds of link time. */
    public long pacerQueueNanos(long nowNanos) {
        return transmitter.pacer().queuedNanos(nowNanos);
    }

    /** Largest estimated own transmit queue seen right after a send, in nanoseconds of link time. */
    public long pacerMaxQueueSeenNanos() {
        return transmitter.pacer().maxQueueSeenNanos();
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }
}
