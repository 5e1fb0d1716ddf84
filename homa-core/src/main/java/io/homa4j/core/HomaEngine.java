package io.homa4j.core;

import io.homa4j.core.internal.grant.GrantScheduler;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.outgoing.Transmitter;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.peer.PeerTable;
import io.homa4j.core.internal.priority.ScheduledPriorities;
import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import io.homa4j.core.internal.rpc.ClientCalls;
import io.homa4j.core.internal.rpc.ClientRpc;
import io.homa4j.core.internal.rpc.ControlSender;
import io.homa4j.core.internal.rpc.EngineClock;
import io.homa4j.core.internal.rpc.Outbound;
import io.homa4j.core.internal.rpc.PacketIntake;
import io.homa4j.core.internal.rpc.PacketVerdict;
import io.homa4j.core.internal.rpc.Receiver;
import io.homa4j.core.internal.rpc.RpcHalf;
import io.homa4j.core.internal.rpc.ServerCalls;
import io.homa4j.core.internal.rpc.ServerRpc;
import io.homa4j.core.internal.timer.SilenceRules;
import io.homa4j.core.internal.timer.TickClock;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.SmallMessageAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
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
 * <p>This class is the engine's contract, each method with the ownership and failure rules its callers rely on;
 * it wires the concerns together. Packets are checked and dispatched in one place, and the client and server
 * halves and the policies live in {@code io.homa4j.core.internal} (see docs/architecture.md).
 */
public final class HomaEngine implements Engine {
    private static final Logger log = LoggerFactory.getLogger(HomaEngine.class);
    /** Idle peers kept for their cutoffs. */
    private static final int MAX_IDLE_PEERS = 16_384;

    private final HomaConfig config;
    private final Metrics metrics = new Metrics();
    private final Transmitter transmitter;
    private final GrantScheduler grants;
    private final EngineClock clock;
    private final PacketVerdict verdict;
    private final PeerTable peers;
    private final TickClock tickClock;
    private final Receiver receiver;
    private final Outbound outbound;
    private final ClientCalls clients;
    private final ServerCalls servers;
    private final PacketIntake intake;
    private boolean closed;

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
     * An engine whose messages that arrive whole in one packet get heap buffers of their own
     * ({@link SmallMessageAllocator}).
     *
     * @param allocator where outgoing packets and multi-packet incoming messages are allocated
     */
    public HomaEngine(HomaConfig config, PacketSink sink, RpcListener listener, ByteBufAllocator allocator,
                      long nowNanos) {
        this(config, sink, listener, allocator, SmallMessageAllocator.INSTANCE, nowNanos);
    }

    /**
     * @param allocator     where outgoing packets and multi-packet incoming messages are allocated
     * @param wholeMessages where a message that arrives whole in one packet is copied out of it: the engine asks
     *                      for a heap buffer of the message's length, which goes to the listener
     */
    public HomaEngine(HomaConfig config, PacketSink sink, RpcListener listener, ByteBufAllocator allocator,
                      ByteBufAllocator wholeMessages, long nowNanos) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(wholeMessages, "wholeMessages");
        PacketEncoder encoder = new PacketEncoder(allocator);
        SilenceRules silence = new SilenceRules(config);
        this.transmitter = new Transmitter(config, sink, encoder, metrics, silence, nowNanos);
        UnscheduledCutoffs ownCutoffs = UnscheduledCutoffs.fromConfig(config, 1);
        PeerTable peers = new PeerTable(MAX_IDLE_PEERS, UnscheduledCutoffs.fromConfig(config, 0));
        int maxPayload = transmitter.maxPayload();
        int fifoIncrement = (int) Math.max(maxPayload, Math.min(config.unscheduledBytes(),
                config.maxIncomingBytes() / 2));
        this.grants = new GrantScheduler(config.maxOvercommit(), config.maxGrantedPerPeer(), config.maxIncomingBytes(),
                config.fifoGrantFraction(), maxPayload, fifoIncrement,
                new ScheduledPriorities(Math.min(ownCutoffs.highestScheduledLevel(), config.priorityLevels() - 1)),
                metrics, config.srpt());
        this.clock = new EngineClock(nowNanos);
        this.verdict = new PacketVerdict(metrics);
        this.peers = peers;
        this.tickClock = new TickClock(config.tickNanos());
        ControlSender control = new ControlSender(config, transmitter, encoder, clock, ownCutoffs);
        this.receiver = new Receiver(config, metrics, verdict, grants, clock, control, wholeMessages);
        this.outbound = new Outbound(config, transmitter, clock, metrics);
        RpcHalf.Parts parts = new RpcHalf.Parts(config, listener, allocator, metrics, clock, verdict, peers, receiver,
                outbound, control, tickClock, silence);
        this.clients = new ClientCalls(parts);
        this.servers = new ServerCalls(parts);
        this.intake = new PacketIntake(parts, transmitter, clients, servers);
    }

    // ------------------------------------------------------------------------------------------------ API

    /**
     * Starts a client RPC.
     *
     * @param server        the server's address
     * @param request       the request payload (may be empty); owned by the engine from now on
     * @param deadlineNanos absolute time (same clock as nowNanos) after which the call fails with
     *                      DEADLINE_EXCEEDED, or {@code Long.MAX_VALUE} for none
     * @return the RPC id (even), used in {@link RpcListener#onResponse} / {@link RpcListener#onCallFailed}
     * @throws RpcRejectedException when the call cannot start (too large, too many outstanding, closed, or
     *                              INVALID_ARGUMENT: {@code request} was already released); no state is left.
     *                              A request released or changed later fails only its own call
     *                              (INVALID_ARGUMENT), through the listener.
     */
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
        Objects.requireNonNull(request, "request");
        if (server == null) {
            releaseUnlessReleased(request);
            throw new NullPointerException("server");
        }
        clock.now(nowNanos);
        if (closed) {
            releaseUnlessReleased(request);
            throw new RpcRejectedException(ErrorCode.CANCELLED, "engine closed");
        }
        long id = clients.call(server, request, deadlineNanos);
        // Only the transmitter: a message found unreadable on the way (this request, shrunk by its owner) fails
        // its RPC at the next poll, which nextWakeNanos makes due at once. Failing it here would make the listener
        // upcall for an RPC whose id the caller has not got yet (it registers the id when call() returns). Nothing
        // may escape from here once the RPC exists (the transmitter contains allocation failures itself).
        transmitter.transmit(nowNanos);
        transmitter.flush();
        return id;
    }

    /** A buffer the application handed over may already be released (API misuse): that must not throw here. */
    private static void releaseUnlessReleased(ByteBuf b) {
        if (b.refCnt() > 0) {
            b.release();
        }
    }

    /**
     * Abandons a client RPC and frees its state; the listener is not called for it. The server is told (so it
     * frees the RPC and its handler learns nobody waits). Unknown ids are ignored.
     */
    public void abort(long rpcId, long nowNanos) {
        clock.now(nowNanos);
        try {
            clients.abort(rpcId);
        } catch (OutOfMemoryError noMemory) {
            // The RPC is freed before the server is told; telling it is one packet, best effort (its own timers
            // free the RPC when the packet is lost), so it is counted and skipped rather than thrown into the
            // application's cancel().
            transmitter.noMemory(nowNanos, noMemory);
        }
        transmitter.flush();
    }

    /**
     * Sends the response of a server RPC delivered by {@link RpcListener#onRequest}.
     *
     * <p>A response longer than {@link HomaConfig#maxMessageBytes()} is released and the client gets
     * MESSAGE_TOO_LARGE instead (the handle counts as answered, so this returns true).
     *
     * <p>A response already released by the caller (or released or changed before all of it went out) fails
     * this RPC alone: the client gets HANDLER_ERROR (or, when part of the response had left, UNAVAILABLE).
     *
     * <p>When such an error response cannot be allocated (out of memory: counted in
     * {@code MetricsSnapshot.allocationFailures}), the RPC stays unanswered until its handler timeout answers it.
     *
     * @return false (and the response is released) when the handle is no longer live
     */
    public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
        Objects.requireNonNull(response, "response");
        clock.now(nowNanos);
        if (closed) {
            return servers.reply(serverHandle, response); // no RPC left: released and counted as a dead handle
        }
        boolean live = true;
        try {
            live = servers.reply(serverHandle, response);
        } catch (OutOfMemoryError noMemory) {
            transmitter.noMemory(nowNanos, noMemory); // an error response; the response itself is released
        }
        transmit(nowNanos);
        transmitter.flush();
        return live;
    }

    /**
     * Fails a server RPC: the client gets HANDLER_ERROR with {@code message}. Same liveness rule, and the same
     * rule when out of memory, as reply.
     */
    public boolean replyError(long serverHandle, String message, long nowNanos) {
        clock.now(nowNanos);
        if (closed) {
            return servers.replyError(serverHandle, message); // no RPC left: counted as a dead handle
        }
        boolean live = true;
        try {
            live = servers.replyError(serverHandle, message);
        } catch (OutOfMemoryError noMemory) {
            transmitter.noMemory(nowNanos, noMemory);
        }
        transmit(nowNanos);
        transmitter.flush();
        return live;
    }

    /**
     * Whether a well-formed packet from {@code peer} arrived at or after {@code sinceNanos}: the peer's engine is
     * alive at that address. False for a peer never heard from (or forgotten).
     */
    public boolean peerHeardSince(InetSocketAddress peer, long sinceNanos) {
        Peer p = peers.get(peer);
        return p != null && p.heardSince(sinceNanos);
    }

    /** RPCs alive with {@code peer}, client and server ones: 0 when nothing waits on it. */
    public int peerRpcCount(InetSocketAddress peer) {
        Peer p = peers.get(peer);
        return p == null ? 0 : p.rpcs();
    }

    /**
     * Nothing listens at {@code server}: the transport probed it at {@code probeSentNanos} and the kernel reported
     * ICMP port unreachable (see {@link io.homa4j.core.wire.PacketType#PROBE}). Fails every outstanding call to it
     * with UNAVAILABLE ("port unreachable"), retry-safe under the rule of every UNAVAILABLE (not all of the request
     * had left), unless a packet from it arrived since the probe went: then a server is there after all and the
     * report is stale.
     *
     * @return the calls failed
     */
    public int peerUnreachable(InetSocketAddress server, long probeSentNanos, long nowNanos) {
        Objects.requireNonNull(server, "server");
        clock.now(nowNanos);
        if (closed) {
            return 0;
        }
        Peer p = peers.get(server);
        if (p == null || p.heardSince(probeSentNanos)) {
            return 0;
        }
        int failed = clients.failUnreachable(p);
        transmitter.flush();
        return failed;
    }

    // ------------------------------------------------------------------------------------------------ packets

    /**
     * Feeds one received UDP payload. Malformed, spoofed or unexpected packets are dropped and counted; this
     * method never throws because of packet contents. The engine releases {@code packet}.
     */
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        clock.now(nowNanos);
        servers.applyLaterAcks();
        try {
            intake.receive(from, packet, packet.readerIndex(), packet.readableBytes(), nowNanos, closed);
        } finally {
            packet.release();
        }
        afterReceiving(nowNanos);
        servers.applyLaterAcks(); // one packet at a time: no turn whose packets could leave first
    }

    /**
     * Feeds the packets of one socket read, in order: what {@link #onPacket} does for each, except that the grant
     * decision and the transmit pass run once, after the last packet, as the receive side of the Linux module
     * does per batch of packets. A transport reading many datagrams per wake-up (recvmmsg, UDP GRO) calls this
     * once per wake-up, so a run of segments of one message costs one grant decision, not one per segment.
     *
     * <p>ACKs that came on requests are applied in {@link #finishTurn}, after the packets this sends have left, or
     * at the start of the next call into the engine.
     *
     * <p>Ownership: the batch's buffers stay the caller's (see {@link PacketBatch}); what the engine keeps of them
     * (message payloads) it has copied by the time this returns.
     */
    @Override
    public void onPackets(PacketBatch batch, long nowNanos) {
        clock.now(nowNanos);
        servers.applyLaterAcks(); // a driver that never calls finishTurn
        for (int i = 0, n = batch.count(); i < n; i++) {
            intake.receive(batch.sender(i), batch.buffer(i), batch.index(i), batch.length(i), nowNanos, closed);
        }
        afterReceiving(nowNanos);
    }

    /** Applies the ACKs that came on requests in the turn that ended (see {@link #onPackets}). */
    @Override
    public void finishTurn(long nowNanos) {
        clock.now(nowNanos);
        servers.applyLaterAcks();
    }

    /** After received packets: the grants they made possible, the DATA that became sendable, one flush. */
    private void afterReceiving(long nowNanos) {
        try {
            if (!closed) {
                receiver.scheduleGrants();
                transmit(nowNanos);
            }
        } catch (RuntimeException e) {
            log.error("internal error after handling received packets", e);
            verdict.dropOutsidePacket(DropReason.INTERNAL_ERROR);
        } finally {
            transmitter.flush();
        }
    }

    // ------------------------------------------------------------------------------------------------ timers

    /** Runs timers and the pacer: sends what is due, fires RESEND, NEED_ACK and timeouts. */
    public void poll(long nowNanos) {
        clock.now(nowNanos);
        if (closed) {
            return;
        }
        servers.applyLaterAcks(); // before the timers, which would otherwise ask for them again (NEED_ACK)
        try {
            clients.expireDeadlines();
            if (tickClock.due(nowNanos)) {
                receiver.tick(nowNanos);
                clients.tick();
                servers.tick(tickClock.elapsedTicks());
                // With no call of ours in flight, a server whose responses only wait for ACKs needs no tick until
                // the first NEED_ACK: a quiet host sleeps through the ticks that would only count the silence.
                int ahead = clients.count() > 0 ? 1 : servers.quietTicksAhead();
                tickClock.ticked(nowNanos, clients.count() > 0 || servers.count() > 0, ahead);
                if (ahead > 1) {
                    servers.tickScheduledAhead();
                }
            }
            if (!closed) {
                receiver.scheduleGrants();
                transmit(nowNanos);
            }
        } catch (OutOfMemoryError noMemory) {
            // A control packet (RESEND, GRANT, BUSY...) could not be allocated: the rest of this tick is skipped
            // and what was not sent is repaired by the next ticks. The tick counts as run: left due, it made the
            // next poll come at once and run it again from the start, so a loop spun while memory was short and
            // every spin counted another silent tick for every call (calls given up within one instant).
            if (tickClock.due(nowNanos)) {
                tickClock.ticked(nowNanos, true);
            }
            transmitter.noMemory(nowNanos, noMemory);
        }
        transmitter.flush();
    }

    /**
     * Sends what is due, then fails the RPCs whose outgoing message turned out unreadable on the way (their
     * failure may start new sends: an error response, RPC_UNKNOWN), until none is left.
     */
    private void transmit(long nowNanos) {
        transmitter.transmit(nowNanos);
        OutgoingMessage unreadable;
        while ((unreadable = transmitter.pollUnreadable()) != null) {
            if (unreadable.owner() instanceof ClientRpc rpc) {
                clients.onRequestUnreadable(rpc, unreadable);
            } else if (unreadable.owner() instanceof ServerRpc rpc) {
                servers.onResponseUnreadable(rpc, unreadable);
            }
            if (!closed) {
                transmitter.transmit(nowNanos);
            }
        }
    }

    /**
     * The host lately took up to {@code lagNanos} between reads of its sockets: a RESEND it hands over may have
     * crossed data we sent that long ago, so such bytes are not retransmitted yet (see
     * {@code Transmitter.hostLag}).
     */
    @Override
    public void onHostLag(long lagNanos, long nowNanos) {
        clock.now(nowNanos);
        transmitter.hostLag(lagNanos);
    }

    /**
     * The driver measured how late its wake-ups come and fits the pacer to it: at most the configured bound
     * ({@link HomaConfig#pacerMaxQueueNanos()}); see {@code Transmitter.fitPacer}.
     */
    @Override
    public void fitPacer(long maxQueueNanos, long wakeLatenessNanos, long nowNanos) {
        clock.now(nowNanos);
        transmitter.fitPacer(maxQueueNanos, wakeLatenessNanos);
    }

    /**
     * The earliest time at which {@link #poll} has work, or {@code Long.MAX_VALUE} when none is pending.
     * Calling poll earlier or more often is harmless.
     */
    public long nextWakeNanos() {
        settleTick();
        return wake(tickClock.nextTickNanos(), transmitter.nextWakeNanos());
    }

    /**
     * {@link #nextWakeNanos()}, except that the timer tick (RESEND, NEED_ACK and abort checks, counted in ticks)
     * may run up to three quarters of a tick ({@link HomaConfig#tickNanos()}) late and the pacer up to
     * {@link HomaConfig#pacerWakeLatenessNanos()}; call deadlines may not.
     */
    @Override
    public long wakeByNanos() {
        settleTick();
        return wake(tickClock.latestTickNanos(), transmitter.latestWakeNanos());
    }

    /**
     * Fits the tick to what is left to watch before the driver arms its wake-up. With no RPC left there is no
     * silence to count: the tick stops now rather than at its next firing, so the host is not woken for a tick
     * with nothing to look at (on a quiet endpoint, one thread wake-up per call). With only one response left,
     * sent in full and waiting for its ACK, the next tick is its first NEED_ACK: the ticks before it would only
     * count the silence, which the stretched tick counts as well ({@link TickClock#stretch}).
     */
    private void settleTick() {
        if (clients.count() > 0) {
            return;
        }
        if (servers.count() == 0) {
            tickClock.disarm();
        } else {
            int ahead = servers.loneRpcQuietTicksAhead();
            boolean stretched = servers.loneRpcIsNewSinceLastTick()
                    ? tickClock.stretchFromNow(ahead, clock.now()) : tickClock.stretch(ahead);
            if (stretched) {
                servers.tickScheduledAhead();
            }
        }
    }

    private long wake(long tickNanos, long pacerNanos) {
        if (closed) {
            return Long.MAX_VALUE;
        }
        if (transmitter.hasUnreadable()) {
            return clock.now(); // RPCs to fail (see call)
        }
        return Math.min(tickNanos, Math.min(clients.nextDeadlineNanos(), pacerNanos));
    }

    /**
     * Fails every outstanding client RPC with CANCELLED (through the listener), drops every server RPC and
     * releases every buffer. Later calls are rejected; later packets are dropped.
     */
    public void close(long nowNanos) {
        clock.now(nowNanos);
        if (closed) {
            return;
        }
        closed = true;
        servers.dropAll();
        // Listeners may try to start calls (rejected) or reply (dead handles) from here on.
        clients.cancelAll();
        transmitter.flush();
    }

    // ------------------------------------------------------------------------------------------------ introspection

    // The package-private gauges below are for the engine's tests (same package); applications read metrics().

    /** An immutable copy of the counters and current gauges. */
    public MetricsSnapshot metrics() {
        return metrics.snapshot(clients.count(), servers.count(), receiver.bufferedBytes(), outbound.outgoingBytes());
    }

    public HomaConfig config() {
        return config;
    }

    /** Client RPCs alive (started, not yet completed, failed or aborted). */
    int clientRpcCount() {
        return clients.count();
    }

    /** True while a call of this engine waits for (the rest of) its response. */
    @Override
    public boolean awaitingPeer() {
        return clients.count() > 0;
    }

    /** Server RPCs alive (from the first request packet until ACK or expiry). */
    int serverRpcCount() {
        return servers.count();
    }

    /** Bytes reserved for partially received messages. */
    long bufferedBytes() {
        return receiver.bufferedBytes();
    }

    /** Bytes of requests and responses held for (re)transmission. */
    long outgoingBytes() {
        return outbound.outgoingBytes();
    }

    /** Granted-but-not-received bytes over all incoming messages. */
    long incomingOutstandingBytes() {
        return grants.outstandingBytes();
    }

    /** Received packets that were processed (not dropped); with the drop counters this accounts for every packet. */
    long packetsHandled() {
        return intake.packetsHandled();
    }

    /** Estimated own transmit queue, in nanoseconds of link time. */
    long pacerQueueNanos(long nowNanos) {
        return transmitter.pacer().queuedNanos(nowNanos);
    }

    /** The pacer's queue bound in effect, in nanoseconds of link time (see {@link #fitPacer}). */
    long pacerMaxQueueNanos() {
        return transmitter.pacer().maxQueueNanos();
    }

    /** Largest estimated own transmit queue seen right after a send, in nanoseconds of link time. */
    long pacerMaxQueueSeenNanos() {
        return transmitter.pacer().maxQueueSeenNanos();
    }

    /** Whether {@link #close} was called. */
    boolean isClosed() {
        return closed;
    }
}
