package io.homa4j.core.rpc;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.peer.Peer;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.ErrorPayload;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server half of an engine: every server RPC from its first request packet until the client's ACK (or
 * expiry). Receives requests, runs the handler once (RpcListener.onRequest), sends responses, answers the
 * client's GRANT, RESEND, BUSY, RPC_UNKNOWN and ACK, and runs the server timers (RESEND for request holes,
 * NEED_ACK, expiry). Engine thread only; internal.
 */
public final class ServerCalls {
    private static final Logger log = LoggerFactory.getLogger(ServerCalls.class);
    /** Server RPCs whose handler ran and that were freed are remembered (this many) to refuse replays. */
    private static final int TOMBSTONES = 4096;

    private final EngineContext ctx;
    private final Map<ServerKey, ServerRpc> rpcs = new HashMap<>();
    private final Map<Long, ServerRpc> byHandle = new HashMap<>();
    private final LinkedHashMap<ServerKey, Boolean> tombstones = new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ServerKey, Boolean> eldest) {
            return size() > TOMBSTONES;
        }
    };
    private long nextHandle = 1;

    public ServerCalls(EngineContext ctx) {
        this.ctx = ctx;
    }

    public int count() {
        return rpcs.size();
    }

    // ---------------------------------------------------------------------------------------------- replies

    /** See {@code HomaEngine.reply}. */
    public boolean reply(long serverHandle, ByteBuf response) {
        ServerRpc rpc = byHandle.get(serverHandle);
        if (rpc == null || rpc.state() != ServerRpc.State.HANDLING) {
            response.release();
            ctx.metrics.deadHandleReply();
            return false;
        }
        int length = response.readableBytes();
        if (length > ctx.config.maxMessageBytes()) {
            response.release();
            startResponse(rpc, ErrorPayload.encode(ctx.allocator, ErrorCode.MESSAGE_TOO_LARGE, "response of "
                    + length + " bytes exceeds the server's maxMessageBytes " + ctx.config.maxMessageBytes()),
                    DataHeader.FLAG_ERROR);
            return true;
        }
        startResponse(rpc, response, 0);
        return true;
    }

    /** See {@code HomaEngine.replyError}. */
    public boolean replyError(long serverHandle, String message) {
        ServerRpc rpc = byHandle.get(serverHandle);
        if (rpc == null || rpc.state() != ServerRpc.State.HANDLING) {
            ctx.metrics.deadHandleReply();
            return false;
        }
        startResponse(rpc, ErrorPayload.encode(ctx.allocator, ErrorCode.HANDLER_ERROR, message),
                DataHeader.FLAG_ERROR);
        return true;
    }

    private void startResponse(ServerRpc rpc, ByteBuf payload, int flags) {
        OutgoingMessage message = ctx.newOutgoing(rpc, rpc.client(), payload, flags);
        rpc.response(message);
        rpc.state(ServerRpc.State.RESPONDING);
        rpc.silentTicks = 0;
        ctx.metrics.serverReplied();
        ctx.transmitter.add(message);
    }

    // ---------------------------------------------------------------------------------------------- packets

    /** A DATA packet of a request. */
    public void onRequestData(InetSocketAddress from, long clientId, DataHeader data, ByteBuf packet,
                              int payloadIndex) {
        if (clientId == 0 || data.error()) {
            ctx.drop(DropReason.MALFORMED);
            return;
        }
        long piggybackedAck = data.ackId();
        if (piggybackedAck != 0 && piggybackedAck != clientId) {
            ack(from, piggybackedAck);
        }
        ServerKey key = new ServerKey(from, clientId);
        ServerRpc rpc = rpcs.get(key);
        int length = data.messageLength();
        if (rpc == null) {
            rpc = newRpc(key, length, data);
            if (rpc == null) {
                return;
            }
        } else {
            if (rpc.state() == ServerRpc.State.RECEIVING && rpc.request().length() != length) {
                // Not a sign of life (see ClientCalls.onResponseData): the RPC must be able to expire.
                ctx.drop(DropReason.INCONSISTENT);
                return;
            }
            rpc.silentTicks = 0;
            if (rpc.state() != ServerRpc.State.RECEIVING) {
                ctx.drop(DropReason.DUPLICATE);
                return;
            }
        }
        ctx.pushCutoffsIfStale(rpc.client(), data.cutoffsVersion());
        IncomingMessage request = rpc.request();
        if (!ctx.receiveSegment(request, data, packet, payloadIndex) || !request.complete()) {
            return;
        }
        ByteBuf payload = request.takePayload(ctx.allocator);
        ctx.retireIncoming(request, rpc.client());
        rpc.request(null);
        rpc.state(ServerRpc.State.HANDLING);
        rpc.silentTicks = 0;
        ctx.metrics.requestDelivered();
        deliver(rpc, payload);
    }

    /** A server RPC for a request's first packet, or null (and the drop counted) when it cannot be created. */
    private ServerRpc newRpc(ServerKey key, int length, DataHeader data) {
        if (tombstones.containsKey(key)) {
            ctx.drop(DropReason.STALE); // a delayed duplicate of a request already handled and acknowledged
            return null;
        }
        if (rpcs.size() >= ctx.config.maxServerRpcs()) {
            ctx.drop(DropReason.SERVER_RPC_LIMIT);
            return null;
        }
        boolean tooLarge = length > ctx.config.maxMessageBytes();
        long reservation = tooLarge ? 0 : IncomingMessage.reservationFor(length, data.segmentLength());
        DropReason overLimit = ctx.bufferLimitFor(ctx.peers.get(key.client()), reservation);
        if (overLimit != null) {
            ctx.drop(overLimit);
            return null;
        }
        Peer peer = ctx.peers.getOrCreate(key.client());
        peer.rpcOpened();
        ServerRpc rpc = new ServerRpc(nextHandle++, key, peer);
        rpcs.put(key, rpc);
        byHandle.put(rpc.handle(), rpc);
        ctx.tickClock.arm(ctx.now());
        if (tooLarge) {
            // Answer with a typed error instead of silence, so the client learns why at once.
            ctx.drop(DropReason.MESSAGE_TOO_LARGE);
            rpc.state(ServerRpc.State.HANDLING);
            startResponse(rpc, ErrorPayload.encode(ctx.allocator, ErrorCode.MESSAGE_TOO_LARGE, "request of "
                    + length + " bytes exceeds the server's maxMessageBytes " + ctx.config.maxMessageBytes()),
                    DataHeader.FLAG_ERROR);
            return null;
        }
        IncomingMessage request = new IncomingMessage(rpc, length, false, data.incoming(), ctx.nextSequence());
        ctx.reserve(request, peer, reservation);
        rpc.request(request);
        ctx.grants.added(request);
        return rpc;
    }

    private void deliver(ServerRpc rpc, ByteBuf payload) {
        try {
            ctx.listener.onRequest(rpc.handle(), rpc.peerAddress(), payload);
        } catch (RuntimeException e) {
            ctx.metrics.listenerError();
            log.warn("RpcListener.onRequest threw for {}", rpc, e);
            if (byHandle.get(rpc.handle()) == rpc && rpc.state() == ServerRpc.State.HANDLING) {
                replyError(rpc.handle(), "handler threw " + e);
            }
        }
    }

    /** The response a GRANT from the client refers to; null (drop counted) if none. */
    public OutgoingMessage responseFor(InetSocketAddress from, long clientId) {
        ServerRpc rpc = rpcs.get(new ServerKey(from, clientId));
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            return null;
        }
        rpc.silentTicks = 0;
        if (rpc.response() == null) {
            ctx.drop(DropReason.STALE);
            return null;
        }
        return rpc.response();
    }

    /** The client asks for response bytes (again), or, with no response yet, whether we are alive. */
    public void onResend(InetSocketAddress from, long clientId, int offset, int length, int priority) {
        ServerKey key = new ServerKey(from, clientId);
        ServerRpc rpc = rpcs.get(key);
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            // Age 0 for a call we handled and forgot: "I may have run it", so the client never re-sends it.
            long age = tombstones.containsKey(key) ? 0 : ctx.age();
            ctx.sendControl(from, PacketType.RPC_UNKNOWN, ctx.encoder.rpcUnknown(clientId ^ 1, age));
            return;
        }
        if (rpc.state() != ServerRpc.State.RECEIVING) {
            rpc.silentTicks = 0;
        } // else only request data is progress: a client that asks but cannot send what we lack must not keep
        // the RPC alive for ever (it expires, and the client's next RESEND restarts the call)
        switch (rpc.state()) {
            case RECEIVING:
            case HANDLING:
                // While receiving, BUSY and never a repeated GRANT: missing granted bytes are most likely queued
                // on the way, and a repeated grant did not back the client's RESENDs off (netlab: 49 held calls
                // drew ~140 RESENDs per second each); a lost grant is recovered by our own timer, whose RESEND
                // for the missing range the client takes as a grant (tick). With every granted byte here, our
                // scheduler holds the request back and BUSY is the truth.
                ctx.sendControl(from, PacketType.BUSY, ctx.encoder.busy(rpc.wireId()));
                break;
            default:
                if (ctx.transmitter.resend(rpc.response(), offset, length, priority)) {
                    ctx.sendControl(from, PacketType.BUSY, ctx.encoder.busy(rpc.wireId()));
                }
        }
    }

    /** The client no longer knows the call: let go. */
    public void onRpcUnknown(InetSocketAddress from, long clientId) {
        ServerRpc rpc = rpcs.get(new ServerKey(from, clientId));
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            return;
        }
        free(rpc);
        ctx.metrics.serverFreedByPeer();
    }

    /** A client whose grant scheduler holds our response back: it still wants it. */
    public void onBusy(InetSocketAddress from, long clientId) {
        ServerRpc rpc = rpcs.get(new ServerKey(from, clientId));
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            return;
        }
        rpc.silentTicks = 0;
    }

    /** The client has the whole response of {@code clientId}: free it (ignored for unknown ids). */
    public void ack(InetSocketAddress from, long clientId) {
        if (!RpcIds.fromClient(clientId)) {
            return;
        }
        ServerRpc rpc = rpcs.get(new ServerKey(from, clientId));
        if (rpc != null && rpc.state() != ServerRpc.State.RECEIVING) {
            free(rpc);
            ctx.metrics.serverFreedByAck();
        }
    }

    private void free(ServerRpc rpc) {
        rpcs.remove(rpc.key());
        byHandle.remove(rpc.handle());
        if (rpc.state() != ServerRpc.State.RECEIVING) {
            tombstones.put(rpc.key(), Boolean.TRUE);
        }
        IncomingMessage request = rpc.request();
        if (request != null) {
            ctx.retireIncoming(request, rpc.client());
            rpc.request(null);
        }
        OutgoingMessage response = rpc.response();
        if (response != null) {
            ctx.retireOutgoing(response);
            rpc.response(null);
        }
        rpc.client().rpcClosed();
    }

    /** Drops every server RPC (engine close); their handles go dead. */
    public void dropAll() {
        for (ServerRpc rpc : new ArrayList<>(rpcs.values())) {
            free(rpc);
        }
        tombstones.clear();
    }

    // ---------------------------------------------------------------------------------------------- timers

    /** One timer tick for every server RPC. */
    public void tick() {
        for (ServerRpc rpc : new ArrayList<>(rpcs.values())) {
            if (rpcs.get(rpc.key()) == rpc) {
                tick(rpc);
            }
        }
    }

    private void tick(ServerRpc rpc) {
        switch (rpc.state()) {
            case RECEIVING: {
                IncomingMessage request = rpc.request();
                if (request.outstandingBytes() == 0) {
                    rpc.silentTicks = 0; // waiting for our own grant scheduler, not for the client
                    ctx.keepAlive(rpc, ++rpc.heldTicks);
                    return;
                }
                rpc.heldTicks = 0;
                rpc.silentTicks++;
                if (ctx.silence.abortDue(rpc.silentTicks)) {
                    expire(rpc);
                } else if (ctx.silence.resendDue(rpc.silentTicks)) {
                    ctx.requestGaps(rpc, request);
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
                if (ctx.silence.abortDue(rpc.silentTicks)) {
                    expire(rpc);
                }
                return;
            default: // AWAITING_ACK
                if (rpc.response().hasUnsentGrantedBytes()) {
                    rpc.silentTicks = 0; // retransmissions still queued
                    return;
                }
                rpc.silentTicks++;
                if (ctx.silence.abortDue(rpc.silentTicks)) {
                    expire(rpc);
                } else if (ctx.silence.needAckDue(rpc.silentTicks)) {
                    ctx.sendControl(rpc.peerAddress(), PacketType.NEED_ACK, ctx.encoder.needAck(rpc.wireId()));
                }
        }
    }

    private void expire(ServerRpc rpc) {
        free(rpc);
        ctx.metrics.serverExpired();
    }
}
