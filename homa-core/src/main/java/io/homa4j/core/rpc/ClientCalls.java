package io.homa4j.core.rpc;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.peer.Peer;
import io.homa4j.core.timer.DeadlineQueue;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.ErrorPayload;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The client half of an engine: every call from {@code call} until its response, failure or abort. Sends
 * requests, receives responses, answers the server's GRANT, RESEND, BUSY, RPC_UNKNOWN and NEED_ACK, owes the
 * server acks, and runs the client timers (RESEND on silence, abort, deadlines). Engine thread only; internal.
 */
public final class ClientCalls {
    private static final Logger log = LoggerFactory.getLogger(ClientCalls.class);
    /** Calls that may send RESENDs to one server in one timer tick. */
    static final int MAX_RESENDS_PER_PEER_PER_TICK = 8;

    private final EngineContext ctx;
    private final RpcIds ids;
    private final Map<Long, ClientRpc> rpcs = new HashMap<>();
    private final DeadlineQueue deadlines = new DeadlineQueue();
    /**
     * Calls due for a RESEND, waiting for their server's per-tick budget; FIFO so none starves. Bounding RESENDs
     * per server keeps thousands of silent calls from flooding a server that is merely slow.
     */
    private final ArrayDeque<ClientRpc> resendQueue = new ArrayDeque<>();
    /** Timer ticks run so far; keys the per-server RESEND budgets. */
    private long tickSerial;
    /** See {@code HomaConfig.retryOnServerStateLoss}: the server's age arrives one one-way delay late. */
    private final long stateLossGraceNanos;

    public ClientCalls(EngineContext ctx, long nowNanos) {
        this.ctx = ctx;
        this.ids = new RpcIds(nowNanos);
        this.stateLossGraceNanos = ctx.config.rttMicros() * 500L;
    }

    public int count() {
        return rpcs.size();
    }

    /** Starts a call (limits already checked for closed-ness by the caller); see {@code HomaEngine.call}. */
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos) {
        if (request.refCnt() <= 0) {
            // Nothing to release: the caller already did. Refused before any state exists.
            throw new RpcRejectedException(ErrorCode.INVALID_ARGUMENT, "the request buffer was already released");
        }
        int length = request.readableBytes();
        if (length > ctx.config.maxMessageBytes()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.MESSAGE_TOO_LARGE,
                    "request of " + length + " bytes exceeds maxMessageBytes " + ctx.config.maxMessageBytes());
        }
        if (rpcs.size() >= ctx.config.maxOutstandingRpcs()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.RESOURCE_EXHAUSTED,
                    "maxOutstandingRpcs (" + ctx.config.maxOutstandingRpcs() + ") calls already outstanding");
        }
        long id = ids.nextClientId();
        Peer peer = ctx.peers.getOrCreate(server);
        peer.rpcOpened();
        ClientRpc rpc = new ClientRpc(id, peer, deadlineNanos, ctx.now());
        OutgoingMessage message = ctx.newOutgoing(rpc, peer, request, 0);
        rpc.request(message);
        rpcs.put(id, rpc);
        deadlines.add(rpc);
        ctx.metrics.clientCall();
        ctx.tickClock.arm(ctx.now());
        ctx.transmitter.add(message);
        return id;
    }

    /** Abandons a call without an upcall, and tells the server; unknown ids are ignored. */
    public void abort(long rpcId) {
        ClientRpc rpc = rpcs.get(rpcId);
        if (rpc == null) {
            return;
        }
        free(rpc);
        ctx.metrics.clientAborted();
        tellServerAbandoned(rpc);
    }

    /**
     * The request of {@code rpc} could not be read (the application released or changed it after the call):
     * only this call fails, and the server is told to drop whatever it received.
     */
    public void onRequestUnreadable(ClientRpc rpc, OutgoingMessage request) {
        if (rpcs.get(rpc.id()) != rpc || rpc.request() != request) {
            return;
        }
        boolean anySent = rpc.firstSentNanos() != Long.MAX_VALUE;
        fail(rpc, ErrorCode.INVALID_ARGUMENT, "the request buffer could not be read (released or changed after"
                + " call())", false);
        if (anySent) {
            tellServerAbandoned(rpc);
        }
    }

    /**
     * A call we give up on while the server may hold its state: RPC_UNKNOWN (what we answer for any call we no
     * longer know) tells the server to free it now, and a handler still running learns that nobody waits for its
     * reply. Only when some of the request went out: otherwise the server has nothing. One packet, not repeated:
     * if it is lost the server frees the RPC by its own timers (handler timeout, expiry).
     */
    private void tellServerAbandoned(ClientRpc rpc) {
        if (rpc.firstSentNanos() == Long.MAX_VALUE) {
            return;
        }
        ctx.sendControl(rpc.peerAddress(), PacketType.RPC_UNKNOWN, ctx.encoder.rpcUnknown(rpc.id(), ctx.age()));
    }

    // ---------------------------------------------------------------------------------------------- packets

    /** A DATA packet of a response (the server's id is {@code clientId ^ 1}). */
    public void onResponseData(InetSocketAddress from, long clientId, DataHeader data, ByteBuf packet,
                               int payloadIndex) {
        ClientRpc rpc = rpcs.get(clientId);
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            // Tell the server to let go (the call was aborted, failed or already completed).
            ctx.sendControl(from, PacketType.RPC_UNKNOWN, ctx.encoder.rpcUnknown(clientId, ctx.age()));
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            ctx.drop(DropReason.WRONG_PEER);
            return;
        }
        int length = data.messageLength();
        IncomingMessage response = rpc.response();
        if (response != null && (response.length() != length || response.error() != data.error())) {
            // Not a sign of life: after a corrupted first packet every real one lands here, and counting them
            // would keep the call from ever timing out.
            ctx.drop(DropReason.INCONSISTENT);
            return;
        }
        rpc.silentTicks = 0;
        rpc.busyStreak = 0; // the server moved the call on
        if (response == null) {
            if (length > ctx.config.maxMessageBytes()) {
                ctx.drop(DropReason.MESSAGE_TOO_LARGE);
                fail(rpc, ErrorCode.MESSAGE_TOO_LARGE, "response of " + length
                        + " bytes exceeds maxMessageBytes " + ctx.config.maxMessageBytes(), false);
                return;
            }
            DropReason refused = ctx.firstSegmentRefusal(rpc.server(), length, data);
            if (refused != null) {
                ctx.drop(refused);
                return;
            }
            response = new IncomingMessage(rpc, length, data.error(), data.incoming(), ctx.nextSequence());
            rpc.response(response);
            ctx.grants.added(response);
            // A response means the server has the whole request: stop sending it and free it.
            OutgoingMessage request = rpc.request();
            if (request != null) {
                ctx.retireOutgoing(request);
                rpc.request(null);
            }
        }
        ctx.pushCutoffsIfStale(rpc.server(), data.cutoffsVersion());
        if (!ctx.receiveSegment(response, rpc.server(), data, packet, payloadIndex) || !response.complete()) {
            return;
        }
        complete(rpc, response);
    }

    /**
     * The call a control packet from {@code from} with the server's id {@code serverWireId} refers to, or null
     * with the drop counted: no such call, or the packet comes from another address than the call's server.
     */
    private ClientRpc callFrom(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = rpcs.get(RpcIds.localId(serverWireId));
        if (rpc == null) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            return null;
        }
        if (!from.equals(rpc.peerAddress())) {
            ctx.drop(DropReason.WRONG_PEER);
            return null;
        }
        return rpc;
    }

    /** The request a GRANT or RESEND from the server refers to; null (drop counted) if none. */
    public OutgoingMessage requestFor(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = callFrom(from, serverWireId);
        if (rpc == null) {
            return null;
        }
        rpc.silentTicks = 0;
        rpc.busyStreak = 0; // the server moved the call on
        if (rpc.request() == null) {
            ctx.drop(DropReason.STALE);
            return null;
        }
        return rpc.request();
    }

    /** The server asks for request bytes again. */
    public void onResend(InetSocketAddress from, long serverWireId, int offset, int length, int priority) {
        if (!rpcs.containsKey(RpcIds.localId(serverWireId))) {
            ctx.drop(DropReason.UNKNOWN_RPC);
            ctx.sendControl(from, PacketType.RPC_UNKNOWN,
                    ctx.encoder.rpcUnknown(RpcIds.localId(serverWireId), ctx.age()));
            return;
        }
        OutgoingMessage request = requestFor(from, serverWireId);
        if (request != null && ctx.transmitter.resend(request, offset, length, priority)) {
            ctx.sendControl(from, PacketType.BUSY, ctx.encoder.busy(request.owner().wireId()));
        }
    }

    /** The server has no state for the call. */
    public void onRpcUnknown(InetSocketAddress from, long serverWireId, long serverAgeNanos) {
        ClientRpc rpc = callFrom(from, serverWireId);
        if (rpc == null) {
            return;
        }
        serverLostState(rpc, serverAgeNanos);
    }

    /**
     * Re-sending is safe only if the server cannot have run the handler: either it never had the whole request
     * (we have not finished sending it in this attempt), or it has been up since before this attempt's first
     * packet left (it keeps the state of every request it received until we ACK, so it never got it).
     */
    private void serverLostState(ClientRpc rpc, long serverAgeNanos) {
        if (rpc.response() != null) {
            fail(rpc, ErrorCode.UNAVAILABLE, "server lost the RPC's state while responding", false);
            return;
        }
        // The server's current incarnation started no later than now - serverAge (its RPC_UNKNOWN left before
        // now). If that is before this attempt's first request packet left, the incarnation existed before any
        // byte of the request could reach it and, holding neither state nor a tombstone (age 0) for the call, it
        // never handled it, so a restart cannot run the handler twice. Comparing with the first packet rather than
        // the call's start matters when calls queue behind the pacer. The grace covers engines started together.
        boolean serverOlder = serverAgeNanos > 0
                && ctx.now() - serverAgeNanos - stateLossGraceNanos <= rpc.firstSentNanos();
        boolean retrySafe = !rpc.requestFullySent() || serverOlder;
        if (retrySafe && ctx.config.retryOnServerStateLoss() && rpc.restarts() < ctx.silence.maxRestarts()) {
            rpc.restart(ctx.now());
            ctx.transmitter.rewind(rpc.request());
            ctx.metrics.clientRestarted();
            return;
        }
        fail(rpc, ErrorCode.UNAVAILABLE, retrySafe ? "server has no state for the call (request not delivered)"
                : "server lost the call's state; it may have handled the request (" + (serverAgeNanos == 0
                        ? "it remembers handling it" : "its engine is " + serverAgeNanos / 1_000_000
                        + " ms old, the request's first packet left " + (ctx.now() - rpc.firstSentNanos()) / 1_000_000
                        + " ms ago") + ")", retrySafe);
    }

    /** The server is alive and working on (or holding back) the call. */
    public void onBusy(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = callFrom(from, serverWireId);
        if (rpc == null) {
            return;
        }
        rpc.silentTicks = 0;
        rpc.busyStreak++;
    }

    /** The server has sent the whole response and asks us to confirm. */
    public void onNeedAck(InetSocketAddress from, long serverWireId) {
        long clientId = RpcIds.localId(serverWireId);
        ClientRpc rpc = rpcs.get(clientId);
        if (rpc != null && from.equals(rpc.peerAddress())) {
            // Still receiving the response; our RESENDs fetch what is missing, and only its data is progress: a
            // server that answers them with NEED_ACK alone (it sent a response we cannot take) must not keep the
            // call alive for ever.
            return;
        }
        long[] ids = ctx.ackScratch;
        int n = 0;
        ids[n++] = clientId;
        Peer peer = ctx.peers.get(from);
        if (peer != null) {
            n = peer.drainAcks(ids, n);
        }
        ctx.sendControl(from, PacketType.ACK, ctx.encoder.ack(clientId, ids, n));
    }

    // ---------------------------------------------------------------------------------------------- endings

    private void complete(ClientRpc rpc, IncomingMessage response) {
        ByteBuf payload = response.takePayload(ctx.allocator);
        Peer peer = rpc.server();
        free(rpc);
        queueAck(peer, rpc.id());
        if (response.error()) {
            try {
                ErrorCode code = ErrorPayload.code(payload);
                String text = ErrorPayload.description(payload);
                ctx.metrics.clientFailed(code);
                notifyFailure(rpc.id(), new RpcFailure(code, text, false));
            } finally {
                payload.release();
            }
            return;
        }
        ctx.metrics.clientCompleted();
        try {
            ctx.listener.onResponse(rpc.id(), payload);
        } catch (RuntimeException e) {
            ctx.metrics.listenerError();
            log.warn("RpcListener.onResponse threw for RPC {}", rpc.id(), e);
        }
    }

    private void queueAck(Peer peer, long clientId) {
        if (peer.addPendingAck(clientId)) {
            return;
        }
        long[] ids = ctx.ackScratch;
        int n = peer.drainAcks(ids, 0);
        ids[n++] = clientId;
        ctx.sendControl(peer.address(), PacketType.ACK, ctx.encoder.ack(0, ids, n));
    }

    private void fail(ClientRpc rpc, ErrorCode code, String message, boolean retrySafe) {
        free(rpc);
        ctx.metrics.clientFailed(code);
        notifyFailure(rpc.id(), new RpcFailure(code, message, retrySafe));
    }

    private void notifyFailure(long rpcId, RpcFailure failure) {
        try {
            ctx.listener.onCallFailed(rpcId, failure);
        } catch (RuntimeException e) {
            ctx.metrics.listenerError();
            log.warn("RpcListener.onCallFailed threw for RPC {}", rpcId, e);
        }
    }

    private void free(ClientRpc rpc) {
        rpcs.remove(rpc.id());
        deadlines.remove(rpc);
        OutgoingMessage request = rpc.request();
        if (request != null) {
            ctx.retireOutgoing(request);
            rpc.request(null);
        }
        IncomingMessage response = rpc.response();
        if (response != null) {
            ctx.retireIncoming(response, rpc.server());
        }
        rpc.server().rpcClosed();
    }

    /** Fails every call with CANCELLED (engine close). */
    public void cancelAll() {
        for (ClientRpc rpc : new ArrayList<>(rpcs.values())) {
            if (rpcs.get(rpc.id()) == rpc) {
                fail(rpc, ErrorCode.CANCELLED, "endpoint closed", rpc.response() == null && !rpc.requestFullySent());
            }
        }
        deadlines.clear();
        resendQueue.clear();
    }

    // ---------------------------------------------------------------------------------------------- timers

    /** Fails every call whose deadline has come. */
    public void expireDeadlines() {
        ClientRpc expired;
        while ((expired = deadlines.pollExpired(ctx.now())) != null) {
            if (rpcs.get(expired.id()) == expired) {
                fail(expired, ErrorCode.DEADLINE_EXCEEDED, "deadline passed", expired.request() != null
                        && !expired.requestFullySent());
                tellServerAbandoned(expired);
            }
        }
    }

    public long nextDeadlineNanos() {
        return deadlines.nextDeadlineNanos();
    }

    /** One timer tick for every call. */
    public void tick() {
        tickSerial++;
        // A copy: failing a call runs the listener, which may start or abort calls.
        for (ClientRpc rpc : new ArrayList<>(rpcs.values())) {
            if (rpcs.get(rpc.id()) == rpc) {
                tick(rpc);
            }
        }
        sendQueuedResends();
    }

    private void tick(ClientRpc rpc) {
        OutgoingMessage request = rpc.request();
        IncomingMessage response = rpc.response();
        if (request != null && request.hasUnsentGrantedBytes()) {
            rpc.silentTicks = 0; // we are the ones holding it up (pacer, SRPT), not the server
            return;
        }
        if (response != null && response.outstandingBytes() == 0) {
            rpc.silentTicks = 0; // everything granted arrived: waiting for our own grant scheduler
            ctx.keepAlive(rpc, ++rpc.heldTicks);
            return;
        }
        rpc.heldTicks = 0;
        if (rpc.silentTicks == 0) {
            rpc.unansweredResends = 0;
            rpc.silenceAtLastResend = 0;
        }
        rpc.silentTicks++;
        boolean serverHeard = rpc.server().heardWithin(ctx.silence.peerGoneNanos(ctx.config.tickNanos()), ctx.now());
        if (ctx.silence.clientAbortDue(rpc.silentTicks, rpc.unansweredResends, serverHeard)) {
            fail(rpc, ErrorCode.UNAVAILABLE, "no word from the server for " + rpc.silentTicks + " ticks ("
                    + rpc.unansweredResends + " RESENDs unanswered)", response == null && !rpc.requestFullySent());
            return;
        }
        if (!rpc.resendQueued && ctx.silence.resendDue(rpc.silentTicks, rpc.silenceAtLastResend, rpc.busyStreak)) {
            rpc.resendQueued = true;
            resendQueue.add(rpc);
        }
    }

    /**
     * Sends the RESENDs that {@link #tick(ClientRpc)} queued, oldest first, for at most
     * {@link #MAX_RESENDS_PER_PEER_PER_TICK} calls per server per tick; the rest wait, in order, for the next tick.
     */
    private void sendQueuedResends() {
        for (int i = resendQueue.size(); i > 0; i--) {
            ClientRpc rpc = resendQueue.poll();
            if (rpcs.get(rpc.id()) != rpc
                    || !ctx.silence.resendDue(rpc.silentTicks, rpc.silenceAtLastResend, rpc.busyStreak)) {
                rpc.resendQueued = false; // finished, or heard from since it was queued
                continue;
            }
            if (!rpc.server().takeResendBudget(tickSerial, MAX_RESENDS_PER_PEER_PER_TICK)) {
                resendQueue.add(rpc);
                continue;
            }
            rpc.resendQueued = false;
            rpc.silenceAtLastResend = rpc.silentTicks;
            rpc.unansweredResends++;
            sendResend(rpc);
        }
    }

    private void sendResend(ClientRpc rpc) {
        IncomingMessage response = rpc.response();
        if (response == null) {
            // Nothing back yet: ask for the response's start; the server answers BUSY, GRANT, data or RPC_UNKNOWN.
            ctx.sendControl(rpc.peerAddress(), PacketType.RESEND, ctx.encoder.resend(rpc.wireId(), 0,
                    ctx.transmitter.maxPayload(), ctx.config.priorityLevels() - 1));
        } else {
            ctx.requestGaps(rpc, response);
        }
    }
}
