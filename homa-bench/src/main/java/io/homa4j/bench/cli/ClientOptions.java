package io.homa4j.bench.cli;

import io.homa4j.bench.driver.DriverConfig;
import io.homa4j.bench.driver.SlowdownRecorder;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The options of an open-loop client run; {@code client} and {@code node} take them. */
public final class ClientOptions {
    static final int DEFAULT_MAX_OUTSTANDING = 200;
    static final int DEFAULT_MAX_MESSAGE = 1_000_000;
    static final int DEFAULT_MAX_WAITING = 100_000;
    static final int DEFAULT_SPIN_US = 50;

    @Mixin
    EndpointOptions endpoint;

    @Option(names = "--servers", required = true, split = ",", paramLabel = "HOST:PORT",
            converter = Converters.EndpointConverter.class, description = "the echo servers, called in turn")
    List<InetSocketAddress> servers;

    @Mixin
    WorkloadOption workload;

    @Bounds(min = 0, minExclusive = true, max = 10_000_000)
    @Option(names = "--load-mbps", required = true, paramLabel = "M",
            description = "offered load in Mbit/s of requests (Poisson arrivals)")
    double loadMbps;

    @Bounds(min = 0, minExclusive = true, max = 86_400)
    @Option(names = "--duration", required = true, paramLabel = "S", description = "measured seconds")
    double duration;

    @Bounds(min = 1, max = Integer.MAX_VALUE - 8)
    @Option(names = "--max-message", paramLabel = "B",
            description = "longest message; the workload is cut there (default " + DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = DEFAULT_MAX_MESSAGE;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "where results.csv, histograms.csv and runs.csv go")
    Path out;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--max-outstanding", paramLabel = "N",
            description = "calls in flight at most (default " + DEFAULT_MAX_OUTSTANDING + ")")
    int maxOutstanding = DEFAULT_MAX_OUTSTANDING;

    @Bounds(min = 0, max = 10_000_000)
    @Option(names = "--max-waiting", paramLabel = "N", description = "arrivals that may wait for the in-flight cap;"
            + " more are skipped and counted (default " + DEFAULT_MAX_WAITING + ")")
    int maxWaiting = DEFAULT_MAX_WAITING;

    @Mixin
    SeedOption seed;

    @Bounds(min = 0, max = 86_400)
    @Option(names = "--warmup", paramLabel = "S", description = "seconds before measuring (default 2)")
    double warmup = 2;

    @Bounds(min = 0, max = 86_400)
    @Option(names = "--drain", paramLabel = "S",
            description = "seconds the last calls may take after the run (default 10)")
    double drain = 10;

    @Option(names = "--progress", paramLabel = "MODE",
            description = "progress display: ${COMPLETION-CANDIDATES} (default auto)")
    ClientPlan.Progress progress = ClientPlan.Progress.AUTO;

    @Bounds(min = 0, max = 10_000)
    @Option(names = "--spin-us", paramLabel = "N", description = "the generator spins instead of parking this close"
            + " to an arrival, microseconds (default " + DEFAULT_SPIN_US + ")")
    int spinUs = DEFAULT_SPIN_US;

    @Option(names = "--unloaded-rtt", paramLabel = "FILE", description = "the unloaded RTT by length (as `unloaded`"
            + " writes it): each measured call's slowdown also goes into DIR/" + SlowdownRecorder.FILE_NAME)
    Path unloadedRtt;

    /** The run these options describe. */
    ClientPlan plan() {
        DriverConfig driver = new DriverConfig(workload.truncatedAt(maxMessage), loadMbps, Converters.nanos(warmup),
                Converters.nanos(duration), maxOutstanding, maxWaiting, Converters.nanos(drain),
                TimeUnit.MICROSECONDS.toNanos(spinUs), seed.seed());
        return new ClientPlan(endpoint.protocol(), servers, endpoint.transport(0, maxMessage), driver, out, progress,
                unloadedRtt);
    }
}
