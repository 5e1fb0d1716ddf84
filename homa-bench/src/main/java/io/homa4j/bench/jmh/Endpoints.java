package io.homa4j.bench.jmh;

import io.homa4j.bench.transport.BenchClient;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An echo server and a client of one protocol on loopback, both in the benchmark's own JVM (the JMH fork), each
 * with its one event-loop thread; plus a request buffer per size whose slices are sent.
 */
final class Endpoints implements AutoCloseable {
    /** Names the system property that overrides {@link #LINK_MBPS} (given to the fork with -jvmArgsAppend). */
    static final String LINK_MBPS_PROPERTY = "homa4j.bench.linkMbps";
    /**
     * Homa paces and sizes its budgets for this link rate: what loopback carries (tens of Gbit/s of UDP GSO+GRO),
     * as TCP is not paced either. A lower rate would make the paced wire time of a 1 MB echo (2 MB at 10 Gbit/s:
     * 1.6 ms) alone longer than TCP's whole RTT.
     */
    static final int LINK_MBPS = Integer.getInteger(LINK_MBPS_PROPERTY, 40_000);
    /** With this system property set to true, closing prints the server's transport and engine counters. */
    static final String PRINT_STATISTICS_PROPERTY = "homa4j.bench.statistics";
    /**
     * The RTT Homa sizes its unscheduled bytes and grant window for: what one round trip between two event
     * loops on a shared VM takes (tens of microseconds, as a blocking UDP ping-pong shows). With 20 us the window
     * would hold 25 KB runs where GSO and GRO move 64 KB per syscall.
     */
    static final int LOOPBACK_RTT_MICROS = Integer.getInteger("homa4j.bench.rttMicros", 100);
    static final int MAX_MESSAGE = 1_000_000;
    static final long CALL_TIMEOUT_SECONDS = 10;

    private final BenchServer server;
    private final BenchClient client;
    /** The threads the server started (its event loop), as ids of {@code /proc/self/task}. */
    private final Set<Integer> serverThreads;
    /** The threads the client started (its event loop). */
    private final Set<Integer> clientThreads;

    Endpoints(Protocol protocol) {
        TransportOptions options = new TransportOptions(InetAddress.getLoopbackAddress(), 0, LINK_MBPS,
                LOOPBACK_RTT_MICROS, MAX_MESSAGE, TransportOptions.DEFAULT_TCP_CONNECTIONS);
        BenchServer[] started = new BenchServer[1];
        this.serverThreads = ThreadActivity.startedBy(() -> started[0] = protocol.startServer(options));
        this.server = started[0];
        BenchClient[] connected = new BenchClient[1];
        try {
            this.clientThreads = ThreadActivity.startedBy(
                    () -> connected[0] = protocol.connect(List.of(server.localAddress()), options));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        this.client = connected[0];
    }

    Set<Integer> serverThreads() {
        return serverThreads;
    }

    Set<Integer> clientThreads() {
        return clientThreads;
    }

    static ByteBuf payload(int size) {
        ByteBuf buf = Unpooled.directBuffer(size);
        for (int i = 0; i < size; i++) {
            buf.writeByte(i);
        }
        return buf;
    }

    /** Starts one echo RPC of all of {@code payload}'s bytes; completes with the response length. */
    CompletableFuture<Integer> start(ByteBuf payload) {
        return client.call(0, payload.retainedSlice());
    }

    /** One echo RPC of all of {@code payload}'s bytes; returns the response length. */
    int call(ByteBuf payload) throws Exception {
        int length = client.call(0, payload.retainedSlice()).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (length != payload.readableBytes()) {
            throw new IllegalStateException("echo returned " + length + " B for " + payload.readableBytes() + " B");
        }
        return length;
    }

    @Override
    public void close() {
        if (Boolean.getBoolean(PRINT_STATISTICS_PROPERTY)) {
            System.out.println(server.statistics());
        }
        client.close();
        server.close();
    }
}
