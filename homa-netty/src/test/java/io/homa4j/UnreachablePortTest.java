package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketType;
import io.homa4j.transport.TransportStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fail fast when nothing listens, over loopback UDP: a call to a closed port ends with UNAVAILABLE ("port
 * unreachable") long before the abort timer could have ended it, through the endpoint's probe of the port and the
 * kernel's ICMP answer; a live server is never reported unreachable; no probe socket outlives its use.
 */
class UnreachablePortTest {
    /** Silence before a call is given up: 20 s, so only the probe can end a call to a closed port in the bound below. */
    private static final HomaConfig CONFIG = HomaConfig.builder().abortTicks(20_000).build();
    /** Half the abort horizon: generous for a loaded machine, and far below what the abort timer needs. */
    private static final long BOUND_SECONDS = 10;
    private final OpenedEndpoints endpoints = new OpenedEndpoints();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
    }

    private HomaEndpoint endpoint(TransportType transport) {
        return endpoints.add(HomaEndpoint.builder().config(CONFIG).transport(transport).build());
    }

    /** A loopback port that was free a moment ago and has nobody on it now. */
    private static InetSocketAddress closedPort() throws SocketException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
        }
    }

    private static HomaException failure(CompletableFuture<?> call) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(BOUND_SECONDS, TimeUnit.SECONDS),
                "ended before the abort horizon");
        return assertInstanceOf(HomaException.class, e.getCause());
    }

    @ParameterizedTest
    @EnumSource(value = TransportType.class, names = {"AUTO", "NIO"})
    void aCallToAClosedPortFailsUnavailableBeforeTheAbortHorizon(TransportType transport) throws Exception {
        HomaEndpoint client = endpoint(transport);
        long start = System.nanoTime();
        HomaException e = failure(client.call(closedPort(), new byte[100]));
        long elapsed = System.nanoTime() - start;

        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("port unreachable"), e.getMessage());
        assertTrue(elapsed < TimeUnit.SECONDS.toNanos(BOUND_SECONDS), elapsed + " ns");
        TransportStats stats = client.transportStats();
        assertEquals(1, stats.probesRefused(), stats.toString());
        assertEquals(0, stats.probesOpen(), "the refused probe's socket is closed");
    }

    @Test
    void manyCallsToManyClosedPortsAllFailFastWithOneProbePerPort() throws Exception {
        HomaEndpoint client = endpoint(TransportType.AUTO);
        int ports = 40;
        int callsPerPort = 25;
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int p = 0; p < ports; p++) {
            InetSocketAddress dead = closedPort();
            for (int i = 0; i < callsPerPort; i++) {
                calls.add(client.call(dead, new byte[1 + i * 100]));
            }
        }
        for (CompletableFuture<byte[]> call : calls) {
            HomaException e = failure(call);
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("port unreachable"), e.getMessage());
        }
        TransportStats stats = client.transportStats();
        // On loopback the kernel does not rate-limit ICMP: every probe is refused. A port is probed again only by
        // calls that reached the event loop after its first probe was refused.
        assertEquals(stats.probesSent(), stats.probesRefused(), stats.toString());
        assertTrue(stats.probesRefused() >= ports && stats.probesSent() <= 2L * ports,
                "one probe per port, not per call: " + stats);
        assertEquals(0, stats.probesOpen());
        assertEquals(0, stats.probesSkipped());
    }

    @Test
    void aLiveServerIsNeverRefusedAndIsProbedOnlyUntilHeard() throws Exception {
        HomaEndpoint server = endpoint(TransportType.AUTO);
        server.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoint(TransportType.AUTO);
        for (int round = 0; round < 2; round++) {
            List<CompletableFuture<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(client.call(server.localAddress(), new byte[] {(byte) i, (byte) round}));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertArrayEquals(new byte[] {(byte) i, (byte) round}, calls.get(i).get(BOUND_SECONDS, TimeUnit.SECONDS));
            }
        }
        TransportStats stats = client.transportStats();
        assertEquals(0, stats.probesRefused(), stats.toString());
        assertEquals(1, stats.probesSent(), "probed once, when first called; heard from ever since: " + stats);
        // The probe closes at the first timer check after the server was heard from.
        MetricsSnapshot serverSaw = server.metricsNow().get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertEquals(1, serverSaw.packetsIn(PacketType.PROBE));
        for (DropReason notHoma : List.of(DropReason.TRUNCATED, DropReason.BAD_MAGIC, DropReason.BAD_VERSION,
                DropReason.UNKNOWN_TYPE, DropReason.MALFORMED)) {
            assertEquals(0, serverSaw.drops(notHoma), "the probe is counted as such, not dropped: " + serverSaw);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (client.transportStats().probesOpen() != 0 && System.nanoTime() < deadline) {
            // One loop turn per round; the probe's check runs on the loop's timer, once per tick.
            client.metricsNow().get(BOUND_SECONDS, TimeUnit.SECONDS);
        }
        assertEquals(0, client.transportStats().probesOpen(), "the answered probe's socket is closed");
    }

    @Test
    void closingTheEndpointClosesOpenProbes() throws Exception {
        HomaEndpoint client = endpoint(TransportType.AUTO);
        // Something listens, but never answers: no ICMP, and the probe stays open until its lifetime (20 s) ends.
        try (DatagramSocket silent = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> call = client.call((InetSocketAddress) silent.getLocalSocketAddress(), new byte[10]);
            client.metricsNow().get(BOUND_SECONDS, TimeUnit.SECONDS); // the call has reached the loop
            assertEquals(1, client.transportStats().probesOpen(), client.transportStats().toString());
            client.close();
            assertEquals(0, client.transportStats().probesOpen());
            assertEquals(ErrorCode.CANCELLED, failure(call).code());
        }
    }
}
