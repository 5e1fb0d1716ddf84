package io.homa4j.core.internal.rpc;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.timer.RpcSilence;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.ErrorPayload;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The server half of an engine: every server RPC from its first request packet until the client's ACK (or
 * expiry). Receives requests, runs the handler once (RpcListener.onRequest), sends responses, answers the
 * client's GRANT, RESEND, BUSY, RPC_UNKNOWN and ACK, and runs the server timers (RESEND for request holes,
 * NEED_ACK, expiry). Engine thread only; internal.
 *
 * <p>The server's answer to each packet type a client sends, the handler's life (once, with its timeout) and the
 * server timers form one state machine over {@link ServerRpc}; the RPCs already handled are remembered in
 * {@link Tombstones}, and what it shares with the client half is in {@link Receiver}, {@link Outbound} and
 * {@link ControlSender}.
 */
public final class ServerCalls extends RpcHalf {
    private static final Logger log = LoggerFactory.getLogger(ServerCalls.class);

    private final ServerRpcTable rpcs = new ServerRpcTable();
    /** The RPC {@link #find} returned last, while it lives. */
    private ServerRpc lastFound;
    private final LongObjectMap<ServerRpc> byHandle = new LongObjectHashMap<>();
    private final Tombstones tombstones = new Tombstones();
    /**
     * ACKs that came on requests, applied once the turn's packets have left ({@link #applyLaterAcks}): freeing
     * the acknowledged RPC is bookkeeping that the new request's handler and response need not wait for.
     */
    private final LaterAcks laterAcks = new LaterAcks(this);
    private long nextHandle = 1;

    public ServerCalls(RpcHalf.Parts parts) {
        super(parts);
    }

    public int count() {
        return rpcs.size();
    }

    // ---------------------------------------------------------------------------------------------- replies

    /** See {@code HomaEngine.reply}. */
    public boolean reply(long serverHandle, ByteBuf response) {
        ServerRpc rpc = byHandle.get(serverHandle);
        boolean released = response.refCnt() <= 0;
        if (rpc == null || rpc.state() != ServerRpc.State.HANDLING) {
            if (!released) {
                response.release();
            }
            metrics.deadHandleReply();
            return false;
        }
        if (released) {
            metrics.unreadableMessage();
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.HANDLER_ERROR,
                    "the handler replied with a released buffer"), DataHeader.FLAG_ERROR);
            return true;
        }
        int length = response.readableBytes();
        if (length > config.maxMessageBytes()) {
            response.release();
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.MESSAGE_TOO_LARGE, "response of "
                    + length + " bytes exceeds the server's maxMessageBytes " + config.maxMessageBytes()),
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
            metrics.deadHandleReply();
            return false;
        }
        startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.HANDLER_ERROR, message),
                DataHeader.FLAG_ERROR);
        return true;
    }

    private void startResponse(ServerRpc rpc, ByteBuf payload, int flags) {
        rpc.responding(outbound.send(rpc, rpc.client(), payload, flags));
        metrics.serverReplied();
    }

    // ---------------------------------------------------------------------------------------------- packets

    /** A DATA packet of a request. */
    public void onRequestData(InetSocketAddress from, Peer sender, long clientId, DataHeader data, ByteBuf packet,
                              int payloadIndex) {
        if (clientId == 0 || data.error()) {
            verdict.drop(DropReason.MALFORMED);
            return;
        }
        long piggybackedAck = data.ackId();
        if (piggybackedAck != 0 && piggybackedAck != clientId) {
            laterAcks.add(from, piggybackedAck);
        }
        ServerRpc rpc = find(from, clientId);
        int length = data.messageLength();
        if (rpc == null) {
            rpc = newRpc(from, clientId, sender, length, data);
            if (rpc == null) {
                return;
            }
            if (Receiver.carriesWholeMessage(data) && deliverWhole(rpc, data, packet, payloadIndex)) {
                return;
            }
            rpc.request(receiver.open(rpc, data));
        } else {
            if (rpc.state() == ServerRpc.State.RECEIVING && rpc.request().length() != length) {
                // Not a sign of life (see ClientCalls.onResponseData): the RPC must be able to expire.
                verdict.drop(DropReason.INCONSISTENT);
                return;
            }
            rpc.silence().heard();
            rpc.silence().resetProbes();
            if (rpc.state() != ServerRpc.State.RECEIVING) {
                verdict.drop(DropReason.DUPLICATE);
                return;
            }
        }
        control.pushCutoffsIfStale(rpc.client(), data.cutoffsVersion());
        IncomingMessage request = rpc.request();
        if (!receiver.receiveSegment(request, rpc.client(), data, packet, payloadIndex)) {
            return;
        }
        if (request.receivedBytes() > config.unscheduledBytes()) {
            rpc.addressProven();
        }
        if (!request.complete()) {
            return;
        }
        ByteBuf payload = request.takePayload(allocator);
        receiver.retire(request, rpc.client());
        rpc.request(null);
        handle(rpc, payload);
    }

    /**
     * A server RPC for a request's first packet, or null (and the drop counted) when it cannot be created; the
     * caller opens its request message (or delivers a request that came whole).
     *
     * @param sender the client's peer entry, or null when it is new
     */
    private ServerRpc newRpc(InetSocketAddress from, long clientId, Peer sender, int length, DataHeader data) {
        if (tombstones.contains(from, clientId)) {
            verdict.drop(DropReason.STALE); // a delayed duplicate of a request already handled and acknowledged
            return null;
        }
        if (rpcs.size() >= config.maxServerRpcs()) {
            verdict.drop(DropReason.SERVER_RPC_LIMIT);
            return null;
        }
        boolean tooLarge = length > config.maxMessageBytes();
        DropReason refused = tooLarge ? null : receiver.firstSegmentRefusal(sender, length, data);
        if (refused != null) {
            verdict.drop(refused);
            return null;
        }
        Peer peer = sender != null ? sender : peers.getOrCreate(from);
        peer.rpcOpened();
        ServerRpc rpc = new ServerRpc(nextHandle++, from, clientId, peer);
        rpcs.add(rpc);
        byHandle.put(rpc.handle(), rpc);
        tickClock.arm(clock.now());
        if (tooLarge) {
            // Answer with a typed error instead of silence, so the client learns why at once.
            verdict.drop(DropReason.MESSAGE_TOO_LARGE);
            rpc.handling();
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.MESSAGE_TOO_LARGE, "request of "
                    + length + " bytes exceeds the server's maxMessageBytes " + config.maxMessageBytes()),
                    DataHeader.FLAG_ERROR);
            return null;
        }
        return rpc;
    }

    /**
     * Hands a new RPC's request that came whole in its first packet to the listener, without the reassembly,
     * reservation and grant bookkeeping a longer message needs; false when it could not be copied out (no
     * memory), and the request is to be taken the usual way.
     */
    private boolean deliverWhole(ServerRpc rpc, DataHeader data, ByteBuf packet, int payloadIndex) {
        ByteBuf payload = receiver.wholeMessage(data, packet, payloadIndex);
        if (payload == null) {
            return false;
        }
        control.pushCutoffsIfStale(rpc.client(), data.cutoffsVersion());
        if (data.messageLength() > config.unscheduledBytes()) {
            rpc.addressProven(); // as for a request that arrives in pieces
        }
        handle(rpc, payload);
        return true;
    }

    /** The request of {@code rpc} is complete: the RPC waits for the handler, which gets {@code payload}. */
    private void handle(ServerRpc rpc, ByteBuf payload) {
        rpc.handling();
        metrics.requestDelivered();
        deliver(rpc, payload);
    }

    private void deliver(ServerRpc rpc, ByteBuf payload) {
        try {
            listener.onRequest(rpc.handle(), rpc.peerAddress(), payload);
        } catch (RuntimeException e) {
            metrics.listenerError();
            log.warn("RpcListener.onRequest threw for {}", rpc, e);
            if (byHandle.get(rpc.handle()) == rpc && rpc.state() == ServerRpc.State.HANDLING) {
                replyError(rpc.handle(), "handler threw " + e);
            }
        }
    }

    /** The response a GRANT from the client refers to; null (drop counted) if none. */
    public OutgoingMessage responseFor(InetSocketAddress from, long clientId) {
        ServerRpc rpc = find(from, clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            return null;
        }
        rpc.silence().heard();
        rpc.silence().resetProbes();
        if (rpc.response() == null) {
            verdict.drop(DropReason.STALE);
            return null;
        }
        return rpc.response();
    }

    /** The client asks for response bytes (again), or, with no response yet, whether we are alive. */
    public void onResend(InetSocketAddress from, long clientId, int offset, int length, int priority) {
        ServerRpc rpc = find(from, clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            // Age 0 for a call we handled and forgot: "I may have run it", so the client never re-sends it.
            boolean handled = tombstones.contains(from, clientId);
            control.rpcUnknown(from, clientId ^ 1, handled ? 0 : clock.age());
            return;
        }
        if (rpc.state() != ServerRpc.State.RECEIVING) {
            rpc.silence().heard();
        } // else only request data is progress: a client that asks but cannot send what we lack must not keep
        // the RPC alive for ever (it expires, and the client's next RESEND restarts the call)
        rpc.silence().resetProbes(); // but it is alive: our own RESENDs for the missing bytes may go again
        switch (rpc.state()) {
            case RECEIVING:
            case HANDLING:
                // While receiving, BUSY and never a repeated GRANT: missing granted bytes are most likely queued
                // on the way, and a repeated grant did not back the client's RESENDs off (netlab: 49 held calls
                // drew ~140 RESENDs per second each); a lost grant is recovered by our own timer, whose RESEND
                // for the missing range the client takes as a grant (tick). With every granted byte here, our
                // scheduler holds the request back and BUSY is the truth.
                control.busy(from, rpc.wireId());
                break;
            default:
                if (outbound.resend(rpc.response(), offset, length, priority)) {
                    control.busy(from, rpc.wireId());
                }
        }
    }

    /**
     * The client no longer knows the call (it gave up: cancelled, deadline passed, or never had it): let go. A
     * handler still running learns of it through {@code RpcListener.onRequestAbandoned}; its late reply finds a
     * dead handle and is dropped and counted ({@code deadHandleReplies}).
     */
    public void onRpcUnknown(InetSocketAddress from, long clientId) {
        ServerRpc rpc = find(from, clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            return;
        }
        boolean handling = rpc.state() == ServerRpc.State.HANDLING;
        free(rpc);
        metrics.serverFreedByPeer();
        if (handling) {
            notifyAbandoned(rpc, new RpcFailure(ErrorCode.CANCELLED, "the client abandoned the call", false));
        }
    }

    /**
     * The handler did not reply within {@code handlerTimeoutTicks}: the client gets DEADLINE_EXCEEDED at once
     * (rather than waiting out its own deadline, or for ever without one), the RPC slot is on its way to being
     * freed, and the handler is told.
     */
    private void handlerTimedOut(ServerRpc rpc) {
        metrics.handlerTimedOut();
        long millis = config.handlerTimeoutTicks() * config.tickNanos() / 1_000_000;
        String text = "the handler did not reply within the server's handler timeout (" + millis + " ms)";
        startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.DEADLINE_EXCEEDED, text),
                DataHeader.FLAG_ERROR);
        notifyAbandoned(rpc, new RpcFailure(ErrorCode.DEADLINE_EXCEEDED, text, false));
    }

    private void notifyAbandoned(ServerRpc rpc, RpcFailure why) {
        try {
            listener.onRequestAbandoned(rpc.handle(), why);
        } catch (RuntimeException e) {
            metrics.listenerError();
            log.warn("RpcListener.onRequestAbandoned threw for {}", rpc, e);
        }
    }

    /**
     * The response's buffer could not be read (the handler released it after replying). Before any byte of it
     * left, the client gets HANDLER_ERROR instead; after, the response cannot be completed or replaced (the client
     * holds its length), so the RPC is dropped and the client told that we no longer have it (RPC_UNKNOWN, age
     * 0: "may have run"), which fails only that call.
     */
    public void onResponseUnreadable(ServerRpc rpc, OutgoingMessage response) {
        if (byHandle.get(rpc.handle()) != rpc || rpc.response() != response) {
            return;
        }
        if (response.nextOffset() == 0) {
            rpc.withdrawUnsentResponse();
            outbound.retire(response);
            startResponse(rpc, ErrorPayload.encode(allocator, ErrorCode.HANDLER_ERROR,
                    "the handler's response buffer could not be read (released or changed after reply)"),
                    DataHeader.FLAG_ERROR);
            return;
        }
        free(rpc);
        control.rpcUnknown(rpc.peerAddress(), rpc.wireId(), 0);
    }

    /** A client whose grant scheduler holds our response back: it still wants it. */
    public void onBusy(InetSocketAddress from, long clientId) {
        ServerRpc rpc = find(from, clientId);
        if (rpc == null) {
            verdict.drop(DropReason.UNKNOWN_RPC);
            return;
        }
        rpc.silence().heard();
        rpc.silence().resetProbes();
    }

    /** Applies the ACKs that came on requests since the last call ({@link #laterAcks}). */
    public void applyLaterAcks() {
        laterAcks.apply();
    }

    /** The client has the whole response of {@code clientId}: free it (ignored for unknown ids). */
    public void ack(InetSocketAddress from, long clientId) {
        if (!RpcIds.fromClient(clientId)) {
            return;
        }
        ServerRpc rpc = find(from, clientId);
        if (rpc != null && rpc.state() != ServerRpc.State.RECEIVING) {
            free(rpc);
            metrics.serverFreedByAck();
        }
    }

    /**
     * The live RPC of {@code clientId} from {@code from}, or null. The RPC found last is checked first: the
     * packets of one socket read are mostly a run of one message's segments, which then cost one map lookup per run
     * instead of per packet.
     */
    private ServerRpc find(InetSocketAddress from, long clientId) {
        ServerRpc last = lastFound;
        if (last != null && last.clientId() == clientId && last.clientAddress().equals(from)) {
            return last;
        }
        ServerRpc rpc = rpcs.get(from, clientId);
        if (rpc != null) {
            lastFound = rpc;
        }
        return rpc;
    }

    private void free(ServerRpc rpc) {
        rpcs.remove(rpc);
        if (lastFound == rpc) {
            lastFound = null;
        }
        byHandle.remove(rpc.handle());
        if (rpc.state() != ServerRpc.State.RECEIVING) {
            tombstones.add(rpc.clientAddress(), rpc.clientId());
        }
        IncomingMessage request = rpc.request();
        if (request != null) {
            receiver.retire(request, rpc.client());
            rpc.request(null);
        }
        OutgoingMessage response = rpc.response();
        if (response != null) {
            outbound.retire(response);
            rpc.response(null);
        }
        rpc.client().rpcClosed();
    }

    /** Drops every server RPC (engine close); their handles go dead. */
    public void dropAll() {
        laterAcks.clear();
        for (ServerRpc rpc : rpcs.snapshot()) {
            free(rpc);
        }
        tombstones.clear();
    }

    // ---------------------------------------------------------------------------------------------- timers

    /** See {@link #quietTicksAhead()}. */
    private int quietTicksAhead = 1;
    /**
     * The first handle given after the tick was last scheduled more than one tick ahead: only RPCs before it were
     * there for the ticks such a tick stands for. A later one (a request that came during the stretch) has been
     * silent for one tick at most when the stretched tick comes.
     */
    private long firstHandleAfterStretch = Long.MAX_VALUE;
    /** The first handle given after the last tick ran: RPCs from it on have had no tick count their silence. */
    private long firstHandleSinceLastTick = 1;

    /**
     * One timer tick for every server RPC; it stands for {@code elapsedTicks} ticks (more than one when the last
     * tick found only responses waiting for their ACK and scheduled this one further ahead, see
     * {@link #quietTicksAhead()}). Only the RPCs there were when it was scheduled count the skipped ticks
     * ({@link #tickScheduledAhead}); one created since counts one.
     */
    public void tick(int elapsedTicks) {
        int ahead = Integer.MAX_VALUE;
        for (ServerRpc rpc : rpcs.snapshot()) {
            if (rpcs.holds(rpc)) {
                tick(rpc, rpc.handle() < firstHandleAfterStretch ? elapsedTicks : 1);
            }
            if (rpcs.holds(rpc)) {
                ahead = Math.min(ahead, quietTicksAhead(rpc));
            }
        }
        quietTicksAhead = ahead == Integer.MAX_VALUE ? 1 : ahead;
        firstHandleSinceLastTick = nextHandle;
    }

    /**
     * Ticks the server side can go without a tick, as found by the last {@link #tick}: more than one only when
     * every RPC is a response sent in full that waits for its ACK, whose next NEED_ACK (or abort) is that many
     * ticks away. On a quiet host the tick then wakes it once per NEED_ACK instead of every tick.
     */
    public int quietTicksAhead() {
        return quietTicksAhead;
    }

    /**
     * The tick was just scheduled more than one tick ahead for the RPCs there are now: they, and no RPC created
     * later, count the ticks it stands for.
     */
    public void tickScheduledAhead() {
        firstHandleAfterStretch = nextHandle;
    }

    /**
     * {@link #quietTicksAhead()} as it is now when this side holds a single RPC, without waiting for a tick to find
     * it: the moment a lone response has gone out in full, its first NEED_ACK is the next thing the tick can do,
     * and the ticks before it would wake a quiet host for nothing. 1 with several RPCs (the next tick looks at
     * them all), or with none.
     */
    public int loneRpcQuietTicksAhead() {
        ServerRpc only = rpcs.onlyRpc();
        return only == null ? 1 : quietTicksAhead(only);
    }

    /**
     * Whether this side's single RPC came after the last tick ran: no tick has counted its silence, which
     * therefore counts from now, not from the tick grid (a request that came while the tick was scheduled far
     * ahead for an earlier response would otherwise be credited with that response's skipped ticks).
     */
    public boolean loneRpcIsNewSinceLastTick() {
        ServerRpc only = rpcs.onlyRpc();
        return only != null && only.handle() >= firstHandleSinceLastTick;
    }

    private int quietTicksAhead(ServerRpc rpc) {
        if (rpc.state() != ServerRpc.State.AWAITING_ACK || rpc.response().hasUnsentGrantedBytes()) {
            return 1;
        }
        return rpc.silence().ticksUntilProbeOrAbort(silenceRules, needAckTicks(rpc), !rpc.isAddressProven());
    }

    /**
     * Silent ticks before {@code rpc}'s first NEED_ACK: longer while it is the only RPC, as its client will most
     * likely acknowledge it on its next request (see HomaConfig.loneNeedAckTicks).
     */
    private int needAckTicks(ServerRpc rpc) {
        return rpcs.onlyRpc() == rpc ? silenceRules.loneNeedAckTicks() : silenceRules.needAckTicks();
    }

    private void tick(ServerRpc rpc, int elapsedTicks) {
        RpcSilence silent = rpc.silence();
        switch (rpc.state()) {
            case RECEIVING: {
                IncomingMessage request = rpc.request();
                if (request.outstandingBytes() == 0) {
                    // waiting for our own grant scheduler, not for the client
                    if (silent.heldTick(silenceRules)) {
                        control.busy(rpc.peerAddress(), rpc.wireId());
                    }
                    return;
                }
                int silentTicks = silent.silentTick(receiver.portDrainedFor(request));
                int resendTicks = silenceRules.resendTicksFor(rpc.client().rtt());
                // A proven client's bytes may wait at our switch port for as long as higher levels keep it busy,
                // with no RESEND asking for them: while the client is heard from, it is waited for. An unproven
                // one (perhaps a forged address that is alive otherwise) gets the plain timeout.
                boolean abort = rpc.isAddressProven()
                        ? silent.liveAbortDue(silenceRules, rpc.client().heardWithin(
                                silenceRules.peerGoneNanos(config.tickNanos()), clock.now()), resendTicks)
                        : silenceRules.abortDue(silentTicks);
                if (abort) {
                    expire(rpc);
                } else if (rpc.isAddressProven() ? silent.serverResendDue(silenceRules, resendTicks)
                        : silent.takeProbe(silenceRules, resendTicks, true)) {
                    if (rpc.isAddressProven()) {
                        silent.resendSent(silenceRules);
                    }
                    receiver.senderSilent(request);
                    control.requestGaps(rpc, request);
                } else if (silent.keepAliveDue(silenceRules)) {
                    control.busy(rpc.peerAddress(), rpc.wireId()); // its bytes may be queued at our port: we still wait
                } else if (silentTicks >= resendTicks) {
                    receiver.senderSilent(request); // an unproven client past its probes: still silent
                }
                return;
            }
            case HANDLING:
                silent.heard();
                if (rpc.handlingTick() >= config.handlerTimeoutTicks()) {
                    handlerTimedOut(rpc);
                }
                return;
            case RESPONDING:
                if (rpc.response().hasUnsentGrantedBytes()) {
                    silent.heard();
                    return;
                }
                if (silenceRules.abortDue(silent.silentTick())) {
                    expire(rpc);
                }
                return;
            default: // AWAITING_ACK
                if (rpc.response().hasUnsentGrantedBytes()) {
                    silent.heard(); // retransmissions still queued
                    return;
                }
                int silentTicks = silent.silentTicks(elapsedTicks);
                if (silenceRules.abortDue(silentTicks)) {
                    expire(rpc);
                } else if (silent.takeProbe(silenceRules, needAckTicks(rpc), !rpc.isAddressProven())) {
                    control.needAck(rpc.peerAddress(), rpc.wireId());
                }
        }
    }

    private void expire(ServerRpc rpc) {
        free(rpc);
        metrics.serverExpired();
    }
}
