package io.homa4j.core.sim;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.PacketDriven;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A simulated host running a real {@link HomaEngine}: the engine's sink is the host's NIC, its listener feeds a
 * {@link RequestHandler} (server side) and {@link SimCall}s (client side). It is the {@link PacketDriven} the network
 * drives, and the harness tests use: {@link #serve}, {@link #call}, {@link #replaceEngine()} for a crash and
 * restart, {@link #engine()} for introspection.
 *
 * <p>Each engine instance is a <em>generation</em>: after {@link #crash()} the old engine is closed and
 * disconnected (its packets are discarded, its pending delayed replies dropped), so nothing of its state can leak
 * into the next generation created by {@link #restart()}.
 *
 * <p>Threading: use only from the thread that runs the network.
 */
public final class HomaHost implements PacketDriven {
    private final SimHost host;
    private final HomaConfig config;
    private Generation current;
    private RequestHandler handler;
    private boolean retainResponses;
    private boolean checksums = true;
    private int generations;
    private long requestsReceived;
    private long callsPending;
    private long discardedSends;
    private long unmatchedUpcalls;

    private HomaHost(SimHost host, HomaConfig config) {
        this.host = host;
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Starts an engine with {@code config} on host {@code index} of {@code network} and attaches it. */
    public static HomaHost attach(SimulatedNetwork network, int index, HomaConfig config) {
        HomaHost homa = new HomaHost(network.host(index), config);
        homa.restart();
        return homa;
    }

    /** Attaches an engine with {@code config} to every host of {@code network}; element i runs on host i. */
    public static HomaHost[] attachAll(SimulatedNetwork network, HomaConfig config) {
        HomaHost[] all = new HomaHost[network.hostCount()];
        for (int i = 0; i < all.length; i++) {
            all[i] = attach(network, i, config);
        }
        return all;
    }

    public SimHost host() { return host; }

    public SimulatedNetwork network() { return host.network(); }

    public InetSocketAddress address() { return host.address(); }

    public HomaConfig config() { return config; }

    /** The current engine, for introspection; null while crashed. */
    public HomaEngine engine() { return current == null ? null : current.engine; }

    /** How many engines this host has run (1 after attach, +1 per restart). */
    public int generation() { return generations; }

    /** Whether an engine is running. */
    public boolean isUp() { return current != null; }

    /** Requests handed to the handler so far, over all generations. */
    public long requestsReceived() { return requestsReceived; }

    /** Calls started here that have not ended. */
    public long callsPending() { return callsPending; }

    /** Packets an old generation tried to send after its crash (discarded). */
    public long discardedSends() { return discardedSends; }

    /** Listener upcalls for RPC ids this host never started (should stay 0). */
    public long unmatchedUpcalls() { return unmatchedUpcalls; }

    /** Sets the application; without one, requests are failed with a handler error. */
    public HomaHost serve(RequestHandler newHandler) {
        this.handler = newHandler;
        return this;
    }

    /** Whether calls keep a copy of their response bytes ({@link SimCall#responseData()}). Off by default. */
    public HomaHost retainResponses(boolean retain) {
        this.retainResponses = retain;
        return this;
    }

    /**
     * Whether calls checksum their request and response (CRC-32C; on by default). Large simulations that do not
     * check payloads may turn it off to save the work; {@link SimCall#echoedRequest()} then compares lengths only.
     */
    public HomaHost checksumPayloads(boolean on) {
        this.checksums = on;
        return this;
    }

    /** Calls {@code server} with {@code request} (owned by the engine from now on), no deadline. */
    public SimCall call(HomaHost server, ByteBuf request) {
        return call(server.address(), request, Long.MAX_VALUE);
    }

    /**
     * Calls {@code server} with {@code request} (owned by the engine from now on).
     *
     * @param deadlineNanos absolute virtual time for DEADLINE_EXCEEDED, or {@code Long.MAX_VALUE}
     * @return the call; already done (rejected) if the engine refused it or the host is down
     */
    public SimCall call(InetSocketAddress server, ByteBuf request, long deadlineNanos) {
        long now = host.nowNanos();
        SimCall call = new SimCall(this, server, request.readableBytes(), checksums ? Payloads.crc32c(request) : 0,
                now);
        Generation g = current;
        if (g == null) {
            request.release();
            call.rejected(ErrorCode.CANCELLED, "host is down", now);
            return call;
        }
        try {
            long id = g.engine.call(server, request, deadlineNanos, now);
            call.started(id);
            g.calls.put(id, call);
            callsPending++;
        } catch (RpcRejectedException e) {
            call.rejected(e.code(), e.getMessage(), now);
        }
        host.wakeChanged();
        return call;
    }

    /**
     * The host crashes: its engine is closed (its own outstanding calls end with the engine's close error), every
     * packet it still tries to send is discarded, and packets reaching the host are dropped until
     * {@link #restart()}.
     */
    public void crash() {
        Generation g = current;
        if (g == null) {
            return;
        }
        current = null;
        host.setDown(true);
        g.close(host.nowNanos());
    }

    /** Starts a fresh engine (no state from before) and brings the host up. No-op while up. */
    public void restart() {
        if (current != null) {
            return;
        }
        Generation g = new Generation();
        g.engine = new HomaEngine(config, g, g, host.nowNanos());
        current = g;
        generations++;
        host.attach(this);
    }

    /** Crash and restart at the same virtual instant: the server loses all RPC state. */
    public void replaceEngine() {
        crash();
        restart();
    }

    // ---------------------------------------------------------------- PacketDriven

    @Override
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        Generation g = current;
        if (g == null) {
            packet.release();
            return;
        }
        g.engine.onPacket(from, packet, nowNanos);
    }

    @Override
    public void poll(long nowNanos) {
        Generation g = current;
        if (g != null) {
            g.engine.poll(nowNanos);
        }
    }

    @Override
    public long nextWakeNanos() {
        Generation g = current;
        return g == null ? Long.MAX_VALUE : g.engine.nextWakeNanos();
    }

    @Override
    public void close(long nowNanos) {
        Generation g = current;
        if (g != null) {
            current = null;
            g.close(nowNanos);
        }
    }

    // ---------------------------------------------------------------- replies from SimRequest

    boolean reply(Generation g, long handle, ByteBuf response) {
        if (!g.live) {
            response.release();
            return false;
        }
        boolean accepted = g.engine.reply(handle, response, host.nowNanos());
        host.wakeChanged();
        return accepted;
    }

    void replyLater(Generation g, long handle, ByteBuf response, long delayNanos) {
        DelayedReply delayed = new DelayedReply(g, handle, response);
        g.delayedReplies.add(delayed);
        network().scheduleAfter(delayNanos, delayed);
    }

    boolean replyError(Generation g, long handle, String message) {
        if (!g.live) {
            return false;
        }
        boolean accepted = g.engine.replyError(handle, message, host.nowNanos());
        host.wakeChanged();
        return accepted;
    }

    @Override
    public String toString() {
        return "HomaHost{" + host + ", generation=" + generations + (isUp() ? "" : ", down") + '}';
    }

    /** A reply a slow handler gave, due later; identity-hashed. */
    private final class DelayedReply implements Runnable {
        final Generation generation;
        final long handle;
        final ByteBuf response;
        boolean cancelled;

        DelayedReply(Generation generation, long handle, ByteBuf response) {
            this.generation = generation;
            this.handle = handle;
            this.response = response;
        }

        @Override
        public void run() {
            if (!cancelled) {
                generation.delayedReplies.remove(this);
                reply(generation, handle, response);
            }
        }
    }

    /** One engine instance with its own sink, listener and call table. */
    final class Generation implements PacketSink, RpcListener {
        HomaEngine engine;
        boolean live = true;
        final Map<Long, SimCall> calls = new HashMap<>();
        /** Replies a slow handler scheduled; released if the engine dies first (or the network closes). */
        final Set<DelayedReply> delayedReplies = new HashSet<>();

        void close(long nowNanos) {
            live = false;
            for (DelayedReply d : delayedReplies) {
                d.response.release();
                d.cancelled = true;
            }
            delayedReplies.clear();
            engine.close(nowNanos);
        }

        @Override
        public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            if (!live) {
                discardedSends++;
                packet.release();
                return;
            }
            host.sink().send(peer, priorityLevel, packet);
        }

        @Override
        public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
            requestsReceived++;
            RequestHandler h = handler;
            if (h == null) {
                request.release();
                engine.replyError(serverHandle, "no handler on " + host, host.nowNanos());
                return;
            }
            h.handle(new SimRequest(HomaHost.this, this, serverHandle, client, request, host.nowNanos()));
        }

        @Override
        public void onResponse(long rpcId, ByteBuf response) {
            SimCall call = calls.remove(rpcId);
            if (call == null) {
                unmatchedUpcalls++;
                response.release();
                return;
            }
            callsPending--;
            call.respond(response, checksums, retainResponses, host.nowNanos());
        }

        @Override
        public void onCallFailed(long rpcId, RpcFailure failure) {
            SimCall call = calls.remove(rpcId);
            if (call == null) {
                unmatchedUpcalls++;
                return;
            }
            callsPending--;
            call.fail(failure, host.nowNanos());
        }
    }
}
