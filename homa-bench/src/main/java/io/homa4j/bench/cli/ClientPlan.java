package io.homa4j.bench.cli;

import io.homa4j.bench.driver.DriverConfig;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One open-loop client run, checked: what {@code client} and {@code node} run, and what a launcher hands a client
 * JVM as {@link #argv()}, which {@code client} parses back into the same plan.
 *
 * @param unloadedRtt the unloaded RTT by length ({@link io.homa4j.bench.driver.RttByLength}'s file) each call's
 *                    slowdown is measured against, or null: no slowdown
 */
public record ClientPlan(Protocol protocol, List<InetSocketAddress> servers, TransportOptions transport,
                         DriverConfig driver, Path out, Progress progress, Path unloadedRtt) {

    /** How the run shows its progress on stderr. */
    public enum Progress {
        /** {@code cr} on a console, else {@code lines}. */
        AUTO,
        /** One line rewritten in place. */
        CR,
        /** A line every five seconds. */
        LINES,
        NONE;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** What this shows here: {@link #AUTO} resolved. */
        Progress resolved() {
            return this != AUTO ? this : System.console() != null ? CR : LINES;
        }
    }

    /** The same run against other servers. */
    public ClientPlan withServers(List<InetSocketAddress> newServers) {
        return new ClientPlan(protocol, List.copyOf(newServers), transport, driver, out, progress, unloadedRtt);
    }

    /** The options of {@code client} that give this plan. */
    public List<String> argv() {
        List<String> argv = new ArrayList<>(List.of("--protocol", protocol.id(),
                "--servers", String.join(",", servers.stream().map(Converters::endpoint).toList()),
                "--bind", transport.bindAddress().getHostAddress(),
                "--link-mbps", Integer.toString(transport.linkMbps()),
                "--link-framing-bytes", Integer.toString(transport.linkFramingBytes()),
                "--rtt-us", Integer.toString(transport.rttMicros()),
                "--tcp-connections", Integer.toString(transport.tcpConnections()),
                "--workload", WorkloadOption.spec(driver.workload()),
                "--max-message", Integer.toString(transport.maxMessage()),
                "--load-mbps", Double.toString(driver.loadMbps()),
                "--duration", Converters.seconds(driver.durationNanos()),
                "--warmup", Converters.seconds(driver.warmupNanos()),
                "--drain", Converters.seconds(driver.drainNanos()),
                "--max-outstanding", Integer.toString(driver.maxOutstanding()),
                "--max-waiting", Integer.toString(driver.maxWaiting()),
                "--seed", Long.toString(driver.seed()),
                "--spin-us", Long.toString(TimeUnit.NANOSECONDS.toMicros(driver.spinNanos())),
                "--progress", progress.toString(),
                "--out", out.toString()));
        if (unloadedRtt != null) {
            argv.addAll(List.of("--unloaded-rtt", unloadedRtt.toString()));
        }
        return argv;
    }
}
