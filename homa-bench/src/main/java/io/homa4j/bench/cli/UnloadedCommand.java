package io.homa4j.bench.cli;

import io.homa4j.bench.driver.JitQuiet;
import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.UnloadedProbe;
import io.homa4j.bench.transport.BenchClient;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.DataHeader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code unloaded}: the unloaded RTT of one transport by message length, against a running echo server on an
 * otherwise idle network ({@link UnloadedProbe}); writes the table clients measure slowdown against
 * ({@code --unloaded-rtt}). The lengths step at Homa's packet boundaries for both transports, so their tables are
 * measured at the same lengths.
 */
@Command(name = "unloaded", sortOptions = false, description = {"Unloaded RTT by message length, one call at a"
        + " time after a warm-up; writes FILE (length_bytes,rtt_us).", "Run it against an echo server on an idle"
        + " network: compare does, on the rack, before the loaded repeats."})
final class UnloadedCommand implements BenchCommand {
    static final double DEFAULT_WARMUP_SECONDS = 10;
    static final int DEFAULT_SAMPLES = 5;
    /** An idle call of the longest message on a slow link takes a good part of a second; this is far beyond. */
    static final long CALL_TIMEOUT_SECONDS = 30;

    @Mixin
    HelpOption help;

    @Mixin
    EndpointOptions endpoint;

    @Option(names = "--server", required = true, paramLabel = "HOST:PORT",
            converter = Converters.EndpointConverter.class, description = "the echo server")
    InetSocketAddress server;

    @Bounds(min = 1, max = Integer.MAX_VALUE - 8)
    @Option(names = "--max-message", paramLabel = "B", description = "the longest length measured (default "
            + ClientOptions.DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = ClientOptions.DEFAULT_MAX_MESSAGE;

    @Bounds(min = 0, max = 3_600)
    @Option(names = "--warmup", paramLabel = "S", description = "seconds of calls before measuring, so the JIT has"
            + " compiled both ends; longer (up to 3x) while this JVM's JIT is still compiling (default "
            + (int) DEFAULT_WARMUP_SECONDS + ")")
    double warmup = DEFAULT_WARMUP_SECONDS;

    @Bounds(min = 1, max = 1_000)
    @Option(names = "--samples", paramLabel = "N", description = "calls per length; the median is kept (default "
            + DEFAULT_SAMPLES + ")")
    int samples = DEFAULT_SAMPLES;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "where the table goes")
    Path out;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        long[] lengths = UnloadedProbe.lengths(maxMessage,
                DataHeader.maxPayload(HomaConfig.defaults().maxUdpPayload()));
        RttByLength table;
        try (BenchClient client = endpoint.protocol().connect(List.of(server), endpoint.transport(0, maxMessage))) {
            err.println(client.describe());
            UnloadedProbe probe = new UnloadedProbe(client, 0, System::nanoTime,
                    TimeUnit.SECONDS.toNanos(CALL_TIMEOUT_SECONDS), UnloadedProbe.settleNanos(endpoint.linkMbps),
                    UnloadedProbe.PARK, JitQuiet.thisJvm());
            try {
                table = probe.measure(lengths, samples, Converters.nanos(warmup));
            } catch (UnloadedProbe.ProbeException e) {
                err.println("unloaded: " + e.getMessage());
                return Cli.FAILED;
            }
        }
        table.write(this.out);
        out.println(String.format(Locale.ROOT, "%s: unloaded RTT %.1f us at 1 B, %.1f us at %,d B (%d lengths x %d"
                        + " calls after %s s of warm-up, medians); wrote %s", endpoint.protocol().id(),
                table.rttNanos(1) / 1e3, table.rttNanos(maxMessage) / 1e3, maxMessage, lengths.length, samples,
                Converters.number(warmup), this.out));
        return Cli.OK;
    }
}
