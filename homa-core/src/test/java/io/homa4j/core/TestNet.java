package io.homa4j.core;

import io.homa4j.core.sim.NetworkConfig;
import io.homa4j.core.sim.SimHost;
import io.homa4j.core.sim.SimulatedNetwork;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.GrantHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The engine tests' network: real engines on hosts of a {@link SimulatedNetwork} with ideal links (no
 * serialization, no queues, one fixed one-way latency), in virtual time from 1 s. What it adds for assertions: every
 * packet an engine sends is checked, decoded and recorded ({@link #sent}); chosen packets are dropped, duplicated
 * or captured by rules; raw bytes can be injected from any address; and engine API calls a test makes between
 * events are noticed (each node's wake-up is read again before every event).
 */
final class TestNet implements AutoCloseable {
    /** Hosts of the underlying network; a test uses a few of them. */
    private static final int HOSTS = 64;
    /** Where the virtual clock starts, so "now minus something" stays positive in tests. */
    private static final long START_NANOS = 1_000_000_000L;

    /** One packet as it was handed to a sink, decoded for assertions. */
    record Sent(long atNanos, InetSocketAddress from, InetSocketAddress to, int priority, PacketType type,
                long rpcId, int offset, int length, int messageLength, int flags, int udpPayloadBytes) {
        /** Bytes on the wire: the UDP payload plus the IPv4 and UDP headers. */
        int wireBytes() {
            return udpPayloadBytes + HomaConfig.IP_UDP_HEADER_BYTES;
        }
    }

    final long latencyNanos;
    private final SimulatedNetwork network;
    private final Map<InetSocketAddress, Node> nodes = new LinkedHashMap<>();
    final List<Sent> sent = new ArrayList<>();
    /** Packets for which this returns true are dropped instead of delivered. */
    Predicate<Sent> dropRule = s -> false;
    /** Packets for which this returns true are delivered twice (the copy 1 ns after the original). */
    Predicate<Sent> duplicateRule = s -> false;
    /** Extra one-way delay per packet, in ns (a queue on the way); 0 for none. */
    java.util.function.ToLongFunction<Sent> delayRule = s -> 0;
    /** Packets for which this returns true are copied into {@link #captured} (for replay). */
    Predicate<Sent> captureRule = s -> false;
    final List<Captured> captured = new ArrayList<>();
    /** Packets dropped by {@link #dropRule} or sent to an address no node has. */
    int dropped;
    private long events;

    /** A copy of a packet seen on the wire. */
    record Captured(Sent sent, ByteBuf copy) {
    }

    TestNet() {
        this(2_000);
    }

    TestNet(long latencyNanos) {
        this.latencyNanos = latencyNanos;
        this.network = new SimulatedNetwork(NetworkConfig.builder()
                .hosts(HOSTS)
                .udpPort(4000)
                .linkBitsPerSecond(NetworkConfig.UNLIMITED)
                .propagationDelayNanos(0)
                .switchLatencyNanos(latencyNanos)
                .portBufferBytes(NetworkConfig.UNLIMITED)
                .portBufferPackets(NetworkConfig.UNLIMITED)
                .sharedBufferBytes(NetworkConfig.UNLIMITED)
                .build());
        network.runUntil(START_NANOS);
    }

    /** The virtual time. */
    long now() {
        return network.nowNanos();
    }

    Node node(String name, HomaConfig config) {
        return node(name, config, io.netty.buffer.ByteBufAllocator.DEFAULT);
    }

    Node node(String name, HomaConfig config, io.netty.buffer.ByteBufAllocator allocator) {
        return node(name, config, allocator, io.homa4j.core.wire.SmallMessageAllocator.INSTANCE);
    }

    /** @param wholeMessages where the engine copies messages that arrive whole in one packet */
    Node node(String name, HomaConfig config, io.netty.buffer.ByteBufAllocator allocator,
              io.netty.buffer.ByteBufAllocator wholeMessages) {
        if (nodes.size() == HOSTS) {
            throw new IllegalStateException("TestNet has " + HOSTS + " hosts");
        }
        Node n = new Node(this, name, network.host(nodes.size()), config, allocator, wholeMessages);
        nodes.put(n.address, n);
        return n;
    }

    /** Replaces a node's engine with a fresh one (the host "restarted" and lost all state). */
    void restart(Node n) {
        n.replaceEngine(new HomaEngine(n.config, n, n, n.allocator, n.wholeMessages, now()));
    }

    private void send(Node from, InetSocketAddress to, int priority, ByteBuf packet) {
        Sent s = describe(from.address, to, priority, packet);
        sent.add(s);
        if (captureRule.test(s)) {
            captured.add(new Captured(s, packet.copy()));
        }
        Node destination = nodes.get(to);
        if (dropRule.test(s) || destination == null) {
            dropped++;
            packet.release();
            return;
        }
        if (duplicateRule.test(s)) {
            network.inject(from.address, destination.host, packet.copy(), latencyNanos + 1);
        }
        long delay = delayRule.applyAsLong(s);
        if (delay > 0) {
            network.inject(from.address, destination.host, packet, latencyNanos + delay);
            return;
        }
        from.host.sink().send(to, priority, packet);
    }

    /** Injects raw bytes as if {@code from} sent them to {@code to}. */
    void inject(InetSocketAddress from, Node to, ByteBuf packet) {
        network.inject(from, to.host, packet, latencyNanos);
    }

    private Sent describe(InetSocketAddress from, InetSocketAddress to, int priority, ByteBuf packet) {
        // decode a heap copy: the packet is leak-tracked and every access to it records a stack trace
        int n = Math.min(packet.readableBytes(), PacketDecoder.MAX_FIXED_HEADER);
        ByteBuf p = Unpooled.wrappedBuffer(new byte[PacketDecoder.MAX_FIXED_HEADER]);
        packet.getBytes(packet.readerIndex(), p, 0, n);
        if (PacketDecoder.check(p, 0, packet.readableBytes()) != null) {
            throw new AssertionError("engine sent an invalid packet: " + PacketDecoder.check(p, 0,
                    packet.readableBytes()));
        }
        CommonHeader h = new CommonHeader().wrap(p, 0);
        PacketType type = h.type();
        int offset = 0;
        int length = 0;
        int messageLength = 0;
        int flags = 0;
        if (type == PacketType.DATA) {
            DataHeader d = new DataHeader().wrap(p, 0);
            offset = d.offset();
            length = d.segmentLength();
            messageLength = d.messageLength();
            flags = d.flags();
        } else if (type == PacketType.GRANT) {
            GrantHeader g = new GrantHeader().wrap(p, 0);
            offset = g.offset();
            flags = g.priority();
        } else if (type == PacketType.RESEND) {
            io.homa4j.core.wire.ResendHeader r = new io.homa4j.core.wire.ResendHeader().wrap(p, 0);
            offset = r.offset();
            length = r.length();
        }
        return new Sent(now(), from, to, priority, type, h.rpcId(), offset, length, messageLength, flags,
                packet.readableBytes());
    }

    /**
     * Before each event: a test may have called an engine directly (call, abort, reply) since the network last
     * did, which may have moved its wake-up; the network reads every engine's wake-up again.
     */
    private void beforeEvent() {
        if (++events > 50_000_000) {
            throw new AssertionError("too many events: an engine keeps asking to be polled");
        }
        for (Node n : nodes.values()) {
            n.host.wakeChanged();
        }
    }

    /** Runs the next event; false when nothing is pending. */
    boolean step() {
        beforeEvent();
        return network.runNext();
    }

    /** Runs until {@code done} holds; fails after {@code maxNanos} of virtual time or when the network idles. */
    void runUntil(BooleanSupplier done, long maxNanos) {
        if (!network.runUntil(() -> {
            beforeEvent();
            return done.getAsBoolean();
        }, maxNanos)) {
            throw new AssertionError(network.pendingEvents() == 0
                    ? "network went idle before the condition held"
                    : "condition not reached within " + maxNanos + " ns of virtual time");
        }
    }

    /** Runs every event up to {@code now + nanos}. */
    void runFor(long nanos) {
        network.runUntil(() -> {
            beforeEvent();
            return false;
        }, nanos);
    }

    /** Runs until no packet is in flight and no engine has timer work. */
    void runUntilIdle(long maxNanos) {
        if (!network.runUntil(() -> {
            beforeEvent();
            return network.pendingEvents() == 0;
        }, maxNanos)) {
            throw new AssertionError("still busy after " + maxNanos + " ns");
        }
    }

    List<Sent> sent(PacketType type) {
        List<Sent> out = new ArrayList<>();
        for (Sent s : sent) {
            if (s.type == type) {
                out.add(s);
            }
        }
        return out;
    }

    @Override
    public void close() {
        network.close(); // closes every engine, releases what is in flight
        for (Node n : nodes.values()) {
            n.releaseAll();
        }
        for (Captured c : captured) {
            if (c.copy.refCnt() > 0) {
                c.copy.release();
            }
        }
    }

    /** A pseudo-random payload from the default (leak-tracked) allocator. */
    static ByteBuf payload(int length, long seed) {
        byte[] bytes = new byte[length];
        new java.util.Random(seed).nextBytes(bytes);
        ByteBuf b = io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(length);
        b.writeBytes(bytes);
        return b;
    }

    static long checksum(ByteBuf b) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b.nioBuffer(b.readerIndex(), b.readableBytes()));
        return crc.getValue();
    }

    /** One host: an engine plus a scriptable application (echo server by default) that records what it sees. */
    static final class Node implements PacketSink, RpcListener {
        interface Handler {
            /** Return the response (ownership passes to the engine), or null to answer later by hand. */
            ByteBuf handle(long handle, InetSocketAddress client, ByteBuf request);
        }

        final TestNet net;
        final String name;
        final SimHost host;
        final InetSocketAddress address;
        final HomaConfig config;
        HomaEngine engine;
        /** Responses received, by RPC id: length and CRC32. */
        final Map<Long, long[]> responses = new HashMap<>();
        final Map<Long, RpcFailure> failures = new HashMap<>();
        final List<Long> completionOrder = new ArrayList<>();
        /** Requests handled, counted per handler run. */
        int requestsHandled;
        /** Server handles the engine reported abandoned (RpcListener.onRequestAbandoned), with why. */
        final Map<Long, RpcFailure> abandoned = new LinkedHashMap<>();
        final Map<Long, ByteBuf> heldRequests = new LinkedHashMap<>();
        Handler handler = (h, c, req) -> req; // echo

        final io.netty.buffer.ByteBufAllocator allocator;
        final io.netty.buffer.ByteBufAllocator wholeMessages;

        Node(TestNet net, String name, SimHost host, HomaConfig config, io.netty.buffer.ByteBufAllocator allocator,
             io.netty.buffer.ByteBufAllocator wholeMessages) {
            this.net = net;
            this.name = name;
            this.host = host;
            this.address = host.address();
            this.config = config;
            this.allocator = allocator;
            this.wholeMessages = wholeMessages;
            this.engine = new HomaEngine(config, this, this, allocator, wholeMessages, net.now());
            host.attach(engine);
        }

        /** Closes the engine (if it is not) and runs {@code next} on this host instead. */
        void replaceEngine(HomaEngine next) {
            if (!engine.isClosed()) {
                engine.close(net.now());
            }
            engine = next;
            host.attach(next);
        }

        long call(Node server, ByteBuf request) {
            return engine.call(server.address, request, Long.MAX_VALUE, net.now());
        }

        long call(Node server, int length, long seed) {
            return call(server, payload(length, seed));
        }

        boolean done(long id) {
            return responses.containsKey(id) || failures.containsKey(id);
        }

        @Override
        public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            if (priorityLevel < 0 || priorityLevel >= config.priorityLevels()) {
                packet.release();
                throw new AssertionError("priority out of range: " + priorityLevel);
            }
            net.send(this, peer, priorityLevel, packet);
        }

        @Override
        public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
            requestsHandled++;
            ByteBuf response = handler.handle(serverHandle, client, request);
            if (response == null) {
                heldRequests.put(serverHandle, request);
            } else {
                engine.reply(serverHandle, response, net.now());
            }
        }

        /** Replies to a held request with its own bytes (echo). */
        boolean replyHeld(long handle) {
            ByteBuf req = heldRequests.remove(handle);
            return engine.reply(handle, req, net.now());
        }

        @Override
        public void onResponse(long rpcId, ByteBuf response) {
            try {
                if (responses.containsKey(rpcId) || failures.containsKey(rpcId)) {
                    throw new AssertionError("second outcome for RPC " + rpcId);
                }
                responses.put(rpcId, new long[] {response.readableBytes(), checksum(response)});
                completionOrder.add(rpcId);
            } finally {
                response.release();
            }
        }

        @Override
        public void onRequestAbandoned(long serverHandle, RpcFailure why) {
            if (abandoned.put(serverHandle, why) != null) {
                throw new AssertionError("handle " + serverHandle + " abandoned twice");
            }
        }

        @Override
        public void onCallFailed(long rpcId, RpcFailure failure) {
            if (responses.containsKey(rpcId) || failures.containsKey(rpcId)) {
                throw new AssertionError("second outcome for RPC " + rpcId);
            }
            failures.put(rpcId, failure);
            completionOrder.add(rpcId);
        }

        void releaseAll() {
            for (ByteBuf b : heldRequests.values()) {
                b.release();
            }
            heldRequests.clear();
        }
    }
}
