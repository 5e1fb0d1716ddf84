package io.homa4j.core.internal.rpc;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.timer.DeadlineQueue;
import io.homa4j.core.internal.timer.RpcSilence;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.ErrorPayload;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The client half of an engine: every call from {@code call} until its response, failure or abort. Sends
 * requests, receives responses, answers the server's GRANT, RESEND, BUSY, RPC_UNKNOWN and NEED_ACK, owes the
 * server acks, and runs the client timers (RESEND on silence, abort, deadlines). Engine thread only; internal.
 *
 * <p>The client's answer to each packet type a server sends and its timers form one state machine over
 * {@link ClientRpc}; the RESENDs it owes wait in {@link ClientResends}, and what the client shares with the server
 * half (buffers, sends, control packets) is in {@link Receiver}, {@link Outbound} and {@link ControlSender}.
 */
public final class ClientCalls extends RpcHalf {
    private static final Logger log = LoggerFactory.getLogger(ClientCalls.class);
    private final RpcIds ids;
    private final ClientRpcTable rpcs = new ClientRpcTable();
    /** The call {@link #find} returned last, while it lives. */
    private ClientRpc lastFound;
    private final DeadlineQueue<ClientRpc> deadlines = new DeadlineQueue<>(ClientRpc::deadlineNanos, ClientRpc::id,
            ClientRpc.DEADLINE_POSITION);
    private final ClientResends resends;
    /** See {@code HomaConfig.retryOnServerStateLoss}: the server's age arrives one one-way delay late. */
    private final long stateLossGraceNanos;

    public ClientCalls(RpcHalf.Parts parts) {
        super(parts);
        this.ids = new RpcIds(parts.clock().now());
        this.stateLossGraceNanos = parts.config().rttMicros() * 500L;
        this.resends = new ClientResends(parts, rpcs);
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
        if (length > config.maxMessageBytes()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.MESSAGE_TOO_LARGE,
                    "request of " + length + " bytes exceeds maxMessageBytes " + config.maxMessageBytes());
        }
        if (rpcs.size() >= config.maxOutstandingRpcs()) {
            request.release();
            throw new RpcRejectedException(ErrorCode.RESOURCE_EXHAUSTED,
                    "maxOutstandingRpcs (" + config.maxOutstandingRpcs() + ") calls already outstanding");
        }
        long id = ids.nextClientId();
        Peer peer = peers.getOrCreate(server);
        peer.rpcOpened();
        ClientRpc rpc = new ClientRpc(id, peer, deadlineNanos);
        rpc.request(outbound.send(rpc, peer, request, 0));
        rpcs.add(rpc);
        deadlines.add(rpc);
        metrics.clientCall();
        tickClock.arm(clock.now());
        return id;
    }

    /** Abandons a call without an upcall, and tells the server; unknown ids are ignored. */
    public void abort(long rpcId) {
        ClientRpc rpc = rpcs.get(rpcId);
        if (rpc == null) {
            return;
        }
        free(rpc);
        metrics.clientAborted();
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
        control.rpcUnknown(rpc.peerAddress(), rpc.id(), clock.age());
    }

    // ---------------------------------------------------------------------------------------------- packets

    /** A DATA packet of a response (the server's id is {@code clientId ^ 1}). */
    public void onResponseData(InetSocketAddress from, long clientId, DataHeader data, ByteBuf packet,
                               int payloadIndex) {
        ClientRpc rpc = find(clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            // Tell the server to let go (the call was aborted, failed or already completed).
            control.rpcUnknown(from, clientId, clock.age());
            return;
        }
        if (!from.equals(rpc.peerAddress())) {
            verdict.drop(DropReason.WRONG_PEER);
            return;
        }
        int length = data.messageLength();
        IncomingMessage response = rpc.response();
        if (response != null && (response.length() != length || response.error() != data.error())) {
            // Not a sign of life: after a corrupted first packet every real one lands here, and counting them
            // would keep the call from ever timing out.
            verdict.drop(DropReason.INCONSISTENT);
            return;
        }
        rpc.silence().movedOn();
        if (response == null) {
            if (length > config.maxMessageBytes()) {
                verdict.drop(DropReason.MESSAGE_TOO_LARGE);
                fail(rpc, ErrorCode.MESSAGE_TOO_LARGE, "response of " + length
                        + " bytes exceeds maxMessageBytes " + config.maxMessageBytes(), false);
                return;
            }
            DropReason refused = receiver.firstSegmentRefusal(rpc.server(), length, data);
            if (refused != null) {
                verdict.drop(refused);
                return;
            }
            // A response means the server has the whole request: stop sending it and free it.
            OutgoingMessage request = rpc.request();
            if (request != null) {
                outbound.retire(request);
                rpc.request(null);
            }
            if (Receiver.carriesWholeMessage(data)) {
                // No reassembly, reservation or grant for a response that came whole in one packet.
                ByteBuf payload = receiver.wholeMessage(data, packet, payloadIndex);
                if (payload != null) {
                    control.pushCutoffsIfStale(rpc.server(), data.cutoffsVersion());
                    complete(rpc, payload, data.error());
                    return;
                }
            }
            response = receiver.open(rpc, data);
            rpc.response(response);
        }
        control.pushCutoffsIfStale(rpc.server(), data.cutoffsVersion());
        if (!receiver.receiveSegment(response, rpc.server(), data, packet, payloadIndex) || !response.complete()) {
            return;
        }
        complete(rpc, response.takePayload(allocator), response.error());
    }

    /**
     * The call a control packet from {@code from} with the server's id {@code serverWireId} refers to, or null
     * with the drop counted: no such call, or the packet comes from another address than the call's server.
     */
    private ClientRpc callFrom(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = find(RpcIds.localId(serverWireId));
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            return null;
        }
        return fromItsServer(from, rpc) ? rpc : null;
    }

    /** Whether {@code from} is {@code rpc}'s server; if not, the drop is counted. */
    private boolean fromItsServer(InetSocketAddress from, ClientRpc rpc) {
        if (!from.equals(rpc.peerAddress())) {
            verdict.drop(DropReason.WRONG_PEER);
            return false;
        }
        return true;
    }

    /** The request a GRANT or RESEND from the server refers to; null (drop counted) if none. */
    public OutgoingMessage requestFor(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = callFrom(from, serverWireId);
        return rpc == null ? null : requestOf(rpc);
    }

    /** The server moved {@code rpc} on; its request, or null (drop counted) when it is no longer sent. */
    private OutgoingMessage requestOf(ClientRpc rpc) {
        rpc.silence().movedOn();
        if (rpc.request() == null) {
            verdict.drop(DropReason.STALE);
            return null;
        }
        return rpc.request();
    }

    /** The server asks for request bytes again. */
    public void onResend(InetSocketAddress from, long serverWireId, int offset, int length, int priority) {
        long clientId = RpcIds.localId(serverWireId);
        ClientRpc rpc = find(clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            control.rpcUnknown(from, clientId, clock.age());
            return;
        }
        if (!fromItsServer(from, rpc)) {
            return;
        }
        OutgoingMessage request = requestOf(rpc);
        if (request != null && outbound.resend(request, offset, length, priority)) {
            control.busy(from, rpc.wireId());
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
                && clock.now() - serverAgeNanos - stateLossGraceNanos <= rpc.firstSentNanos();
        boolean retrySafe = !rpc.requestFullySent() || serverOlder;
        if (retrySafe && config.retryOnServerStateLoss() && rpc.restarts() < silenceRules.maxRestarts()) {
            rpc.restart();
            outbound.rewind(rpc.request());
            metrics.clientRestarted();
            return;
        }
        fail(rpc, ErrorCode.UNAVAILABLE, retrySafe ? "server has no state for the call (request not delivered)"
                : "server lost the call's state; it may have handled the request (" + (serverAgeNanos == 0
                        ? "it remembers handling it" : "its engine is " + serverAgeNanos / 1_000_000
                        + " ms old, the request's first packet left " + (clock.now() - rpc.firstSentNanos()) / 1_000_000
                        + " ms ago") + ")", retrySafe);
    }

    /** The server is alive and working on (or holding back) the call. */
    public void onBusy(InetSocketAddress from, long serverWireId) {
        ClientRpc rpc = callFrom(from, serverWireId);
        if (rpc == null) {
            return;
        }
        rpc.silence().busy();
    }

    /** The server has sent the whole response and asks us to confirm. */
    public void onNeedAck(InetSocketAddress from, Peer sender, long serverWireId) {
        long clientId = RpcIds.localId(serverWireId);
        ClientRpc rpc = find(clientId);
        if (rpc != null && from.equals(rpc.peerAddress())) {
            // Still receiving the response; our RESENDs fetch what is missing, and only its data is progress: a
            // server that answers them with NEED_ACK alone (it sent a response we cannot take) must not keep the
            // call alive for ever.
            return;
        }
        control.ackWithPending(from, clientId, sender);
    }

    // ---------------------------------------------------------------------------------------------- endings

    /** The whole response arrived: the call ends; takes ownership of {@code payload}. */
    private void complete(ClientRpc rpc, ByteBuf payload, boolean error) {
        Peer peer = rpc.server();
        free(rpc);
        queueAck(peer, rpc.id());
        if (error) {
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
        if (!peer.addPendingAck(clientId)) {
            control.flushAcks(peer, clientId);
        }
    }

    private void fail(ClientRpc rpc, ErrorCode code, String message, boolean retrySafe) {
        free(rpc);
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

    /**
     * The live call {@code rpcId}, or null. The call found last is checked first: the packets of one socket read
     * are mostly a run of one response's segments, which then cost one table lookup per run.
     */
    private ClientRpc find(long rpcId) {
        ClientRpc last = lastFound;
        if (last != null && last.id() == rpcId) {
            return last;
        }
        ClientRpc rpc = rpcs.get(rpcId);
        if (rpc != null) {
            lastFound = rpc;
        }
        return rpc;
    }

    private void free(ClientRpc rpc) {
        rpcs.remove(rpc.id());
        if (lastFound == rpc) {
            lastFound = null;
        }
        deadlines.remove(rpc);
        OutgoingMessage request = rpc.request();
        if (request != null) {
            outbound.retire(request);
            rpc.request(null);
        }
        IncomingMessage response = rpc.response();
        if (response != null) {
            receiver.retire(response, rpc.server());
        }
        rpc.server().rpcClosed();
    }

    /**
     * Fails every call to {@code server} with UNAVAILABLE: the transport learnt that nothing listens at its port.
     * The server is not told (there is nobody to tell).
     *
     * @return the calls failed
     */
    public int failUnreachable(Peer server) {
        if (server.rpcs() == 0) {
            return 0;
        }
        int failed = 0;
        // A copy: failing a call runs the listener, which may start or abort calls.
        for (ClientRpc rpc : rpcs.snapshot()) {
            if (rpc.server() == server && rpcs.get(rpc.id()) == rpc) {
                fail(rpc, ErrorCode.UNAVAILABLE, "port unreachable: nothing listens at " + server.address()
                        + " (ICMP)", rpc.response() == null && !rpc.requestFullySent());
                failed++;
            }
        }
        return failed;
    }

    /** Fails every call with CANCELLED (engine close). */
    public void cancelAll() {
        for (ClientRpc rpc : rpcs.snapshot()) {
            if (rpcs.get(rpc.id()) == rpc) {
                fail(rpc, ErrorCode.CANCELLED, "endpoint closed", rpc.response() == null && !rpc.requestFullySent());
            }
        }
        deadlines.clear();
        resends.clear();
    }

    // ---------------------------------------------------------------------------------------------- timers

    /** Fails every call whose deadline has come. */
    public void expireDeadlines() {
        ClientRpc expired;
        while ((expired = deadlines.pollExpired(clock.now())) != null) {
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
        resends.newTick();
        // A copy: failing a call runs the listener, which may start or abort calls.
        for (ClientRpc rpc : rpcs.snapshot()) {
            if (rpcs.get(rpc.id()) == rpc) {
                tick(rpc);
            }
        }
        resends.sendQueued();
    }

    private void tick(ClientRpc rpc) {
        OutgoingMessage request = rpc.request();
        IncomingMessage response = rpc.response();
        RpcSilence silent = rpc.silence();
        if (request != null && request.hasUnsentGrantedBytes()) {
            silent.heard(); // we are the ones holding it up (pacer, SRPT), not the server
            return;
        }
        if (response != null && response.outstandingBytes() == 0) {
            // everything granted arrived: waiting for our own grant scheduler
            if (silent.heldTick(silenceRules)) {
                control.busy(rpc.peerAddress(), rpc.wireId());
            }
            return;
        }
        // Missing response bytes may wait at our switch port behind higher levels; before any of the response came,
        // the wait is the server's (handling, or its own queue), which its BUSY answers tell
        int silentTicks = response == null ? silent.silentTick() : silent.silentTick(receiver.portDrainedFor(response));
        boolean serverHeard = rpc.server().heardWithin(silenceRules.peerGoneNanos(config.tickNanos()), clock.now());
        int resendTicks = silenceRules.resendTicksFor(rpc.server().rtt());
        if (silent.liveAbortDue(silenceRules, serverHeard, resendTicks)) {
            fail(rpc, ErrorCode.UNAVAILABLE, "no word from the server for " + silentTicks + " ticks ("
                    + silent.unansweredResends() + " RESENDs unanswered)",
                    response == null && !rpc.requestFullySent());
            return;
        }
        if (!rpc.resendQueued() && silent.clientResendDue(silenceRules, resendTicks)) {
            resends.queue(rpc);
        } else if (silent.keepAliveDue(silenceRules)) {
            control.busy(rpc.peerAddress(), rpc.wireId()); // its bytes may be queued at our port: we still wait
        }
    }
}
