package io.homa4j.bench.simulate;

import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.PacketDriven;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.sim.SimHost;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One simulated host of the study: a real {@link HomaEngine} that is both an echo server (every request is
 * answered with itself, at once) and an open-loop client.
 *
 * <p>The client draws Poisson arrivals from its own seeded generator: at each arrival a message length from the
 * workload and a destination uniformly among the other hosts. A call starts at its arrival time unless
 * {@code maxOutstanding} calls are already out; then it waits in FIFO order, and its RTT still counts from the
 * arrival time (open loop: waiting is latency, not hidden). Arrivals stop at {@link #stopArrivalsAt}.
 *
 * <p>Request payloads are retained slices of one shared read-only buffer (their contents do not matter here), so
 * generating load allocates nothing per byte. Network thread only.
 */
final class RackNode implements PacketDriven, RpcListener {
    /**
     * The engines' message buffers (packets: {@link RecyclingAllocator}). Netty's pooled allocator rather than the
     * default adaptive one: its direct buffers copy payload slices with one memory copy where the adaptive
     * allocator's go through NIO views allocated per copy. The buffers' contents and lengths, and so the
     * simulation, are the same either way. One direct arena (one thread uses it) of 32 MiB chunks (8 KiB pages,
     * order 12): with the default 4 MiB chunks every longer message (W4 and W5 reach 10 and 29.4 MB) would be a
     * fresh allocation zeroed by the JVM.
     */
    private static final ByteBufAllocator MESSAGE_BUFFERS = new PooledByteBufAllocator(true, 0, 1, 8192, 12);
    private final SimHost host;
    private final HomaEngine engine;
    private final ByteBuf sharedPayload;
    private final CallObserver observer;
    private final Map<Long, Call> calls = new HashMap<>();
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    private InetSocketAddress[] peers = new InetSocketAddress[0];
    private Workload workload;
    private SplittableRandom random;
    private double meanGapNanos;
    private double nextArrival = Double.POSITIVE_INFINITY;
    private long nextArrivalNanos = Long.MAX_VALUE;
    private long stopArrivalsNanos = Long.MAX_VALUE;
    private int maxOutstanding = Integer.MAX_VALUE;
    private long arrivals;
    private long maxWaiting;
    private boolean closing;

    /** Buffers for the nodes of one rack: they share it, on the network's thread. */
    static ByteBufAllocator rackBuffers() {
        return rackBuffers(false);
    }

    /** @param realPayloads whether message buffers hold their bytes ({@link LengthOnlyBuffer}s otherwise) */
    static ByteBufAllocator rackBuffers(boolean realPayloads) {
        return new RecyclingAllocator(MESSAGE_BUFFERS, !realPayloads);
    }

    /** @param buffers this rack's {@link #rackBuffers()} */
    RackNode(SimHost host, HomaConfig config, ByteBuf sharedPayload, CallObserver observer, ByteBufAllocator buffers) {
        this.host = host;
        this.sharedPayload = sharedPayload;
        this.observer = observer;
        this.engine = new HomaEngine(config, host.sink(), this, buffers, host.nowNanos());
        host.attach(this);
    }

    /**
     * Starts open-loop arrivals at {@code requestsPerSecond} to the {@code others} (never this host), from
     * {@code seed}; the first arrival is one random gap after now.
     */
    void generate(Workload load, double requestsPerSecond, InetSocketAddress[] others, int outstandingCap,
                  long seed) {
        this.workload = load;
        this.peers = others.clone();
        this.random = new SplittableRandom(seed);
        this.meanGapNanos = 1e9 / requestsPerSecond;
        this.maxOutstanding = outstandingCap;
        this.nextArrival = host.nowNanos() + exponentialGap();
        this.nextArrivalNanos = (long) Math.ceil(nextArrival);
        host.wakeChanged();
    }

    /** No arrival at or after {@code nanos}. */
    void stopArrivalsAt(long nanos) {
        this.stopArrivalsNanos = nanos;
    }

    /** Starts one call now (or queues it behind the outstanding cap), outside the arrival process. */
    void callNow(InetSocketAddress server, int length) {
        long now = host.nowNanos();
        admit(new Call(server, length, now), now);
        host.wakeChanged();
    }

    HomaEngine engine() { return engine; }

    /** Arrivals generated so far. */
    long arrivals() { return arrivals; }

    /** Most arrivals ever waiting for the outstanding cap at once. */
    long maxWaiting() { return maxWaiting; }

    /** Calls still pending, for the run's end: their length and arrival time. */
    Iterable<Call> unfinished() {
        ArrayDeque<Call> all = new ArrayDeque<>(calls.values());
        all.addAll(waiting);
        return all;
    }

    // ------------------------------------------------------------------------------------------------ PacketDriven

    @Override
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        engine.onPacket(from, packet, nowNanos);
    }

    @Override
    public void poll(long nowNanos) {
        engine.poll(nowNanos);
        while (nextArrivalNanos <= nowNanos) {
            if (nextArrivalNanos >= stopArrivalsNanos) {
                nextArrivalNanos = Long.MAX_VALUE;
                break;
            }
            arrivals++;
            int length = workload.sample(random);
            InetSocketAddress server = peers[peers.length == 1 ? 0 : random.nextInt(peers.length)];
            admit(new Call(server, length, nextArrivalNanos), nowNanos);
            nextArrival += exponentialGap();
            nextArrivalNanos = (long) Math.ceil(nextArrival);
        }
    }

    @Override
    public long nextWakeNanos() {
        return Math.min(engine.nextWakeNanos(), nextArrivalNanos);
    }

    @Override
    public void close(long nowNanos) {
        closing = true;
        waiting.clear();
        engine.close(nowNanos);
        calls.clear();
    }

    // ------------------------------------------------------------------------------------------------ engine upcalls

    @Override
    public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
        engine.reply(serverHandle, request, host.nowNanos());
    }

    @Override
    public void onResponse(long rpcId, ByteBuf response) {
        response.release();
        Call call = calls.remove(rpcId);
        if (call == null) {
            return;
        }
        long now = host.nowNanos();
        observer.completed(call.length, call.intendedNanos, now);
        startWaiting(now);
    }

    @Override
    public void onCallFailed(long rpcId, RpcFailure failure) {
        Call call = calls.remove(rpcId);
        if (call == null || closing) {
            return;
        }
        long now = host.nowNanos();
        observer.failed(call.length, call.intendedNanos, failure, now);
        startWaiting(now);
    }

    // ------------------------------------------------------------------------------------------------ internals

    private void admit(Call call, long now) {
        observer.arrived(call.length, call.intendedNanos);
        if (calls.size() >= maxOutstanding) {
            waiting.add(call);
            maxWaiting = Math.max(maxWaiting, waiting.size());
        } else {
            start(call, now);
        }
    }

    private void startWaiting(long now) {
        while (!waiting.isEmpty() && calls.size() < maxOutstanding) {
            start(waiting.poll(), now);
        }
    }

    private void start(Call call, long now) {
        try {
            long id = engine.call(call.server, sharedPayload.retainedSlice(0, call.length), Long.MAX_VALUE, now);
            calls.put(id, call);
        } catch (RpcRejectedException e) {
            observer.failed(call.length, call.intendedNanos, new RpcFailure(e.code(), e.getMessage(), false), now);
        }
    }

    private double exponentialGap() {
        return -Math.log(1.0 - random.nextDouble()) * meanGapNanos;
    }

    /** One call: its request length and the time it was due (its RTT counts from then). */
    static final class Call {
        final InetSocketAddress server;
        final int length;
        final long intendedNanos;

        Call(InetSocketAddress server, int length, long intendedNanos) {
            this.server = server;
            this.length = length;
            this.intendedNanos = intendedNanos;
        }
    }
}
