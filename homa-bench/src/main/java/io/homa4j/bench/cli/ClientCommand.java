package io.homa4j.bench.cli;

import io.homa4j.bench.driver.DriverConfig;
import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.OpenLoopDriver;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.transport.BenchClient;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import io.homa4j.bench.workload.Workload;
import io.homa4j.bench.workload.Workloads;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** {@code client}: one open-loop run against running echo servers; writes results.csv and histograms.csv. */
final class ClientCommand implements Command {
    static final int DEFAULT_LINK_MBPS = 10_000;
    /**
     * Unloaded RTT Homa sizes its windows for: 100 us, the measured P50 of a 100 B Homa call over loopback between
     * two JVMs (docs/api.md: 56-115 us). With 20 us the engine's incoming window (8 x link x RTT) was 20 KB at
     * 1,000 Mbit/s and a W4 compare carried 129 Mbit/s; with 100 us, 262 Mbit/s.
     */
    static final int DEFAULT_RTT_US = 100;
    static final int DEFAULT_MAX_OUTSTANDING = 200;
    static final int DEFAULT_MAX_MESSAGE = 1_000_000;
    /** The options of a client run; {@code node} takes them too. */
    static final List<CliOption> OPTIONS = List.of(
            CliOption.required("protocol", "homa|tcp", "the transport"),
            CliOption.required("servers", "HOST:PORT,...", "the echo servers, called in turn"),
            CliOption.workload(),
            CliOption.required("load-mbps", "M", "offered load in Mbit/s of requests (Poisson arrivals)"),
            CliOption.required("duration", "S", "measured seconds"),
            CliOption.maxMessage(DEFAULT_MAX_MESSAGE),
            CliOption.required("out", "DIR", "where results.csv, histograms.csv and runs.csv go"),
            CliOption.value("bind", "ADDR", "local address (default loopback)"),
            CliOption.value("link-mbps", "N", "Homa's link rate: pacing and windows (default " + DEFAULT_LINK_MBPS
                    + ")"),
            CliOption.linkFramingBytes(),
            CliOption.rttMicros(DEFAULT_RTT_US),
            CliOption.value("max-outstanding", "N", "calls in flight at most (default " + DEFAULT_MAX_OUTSTANDING
                    + ")"),
            CliOption.value("max-waiting", "N", "arrivals that may wait for the in-flight cap; more are skipped"
                    + " and counted (default 100000)"),
            CliOption.value("seed", "S", "random seed of arrivals and lengths (default 1)"),
            CliOption.value("warmup", "S", "seconds before measuring (default 2)"),
            CliOption.value("drain", "S", "seconds the last calls may take after the run (default 10)"),
            CliOption.value("tcp-connections", "N", "TCP connections per server (default "
                    + TransportOptions.DEFAULT_TCP_CONNECTIONS + ")"),
            CliOption.value("progress", "auto|cr|lines|none", "progress display (default auto)"),
            CliOption.value("spin-us", "N", "the generator spins instead of parking this close to an arrival,"
                    + " microseconds (default 50)"));

    @Override
    public String name() {
        return "client";
    }

    @Override
    public String[] description() {
        return new String[] {"Open-loop Poisson client; writes DIR/results.csv and DIR/histograms.csv."};
    }

    @Override
    public List<CliOption> options() {
        return OPTIONS;
    }

    /** Everything one client run needs, checked. */
    record Plan(Protocol protocol, List<InetSocketAddress> servers, TransportOptions transport, DriverConfig driver,
                Path out, String progress) {
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        Plan plan = plan(args);
        RunStats stats = execute(plan, out, err);
        return succeeded(stats, err) ? Cli.OK : Cli.FAILED;
    }

    /**
     * A run that completed calls succeeded: failed and unfinished calls are results (in the summary line, with a
     * warning here), not a reason to throw the measurements away. A run that completed nothing failed.
     */
    static boolean succeeded(RunStats stats, PrintStream err) {
        if (stats.failed() > 0 || stats.unfinished() > 0) {
            err.println(String.format(Locale.ROOT, "WARNING %s: %d of %d calls failed and %d did not finish; their"
                    + " RTTs are not in the histograms", stats.protocol(), stats.failed(), stats.sent(),
                    stats.unfinished()));
        }
        return stats.completed() > 0;
    }

    static Protocol protocol(Args args) throws UsageException {
        try {
            return Protocol.parse(args.required("protocol"));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    static Workload workload(Args args, int maxMessage) throws UsageException {
        try {
            return Workloads.parse(args.string("workload", "w4")).truncatedAt(maxMessage);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    static Plan plan(Args args) throws UsageException {
        Protocol protocol = protocol(args);
        List<InetSocketAddress> servers = args.endpoints("servers");
        int maxMessage = args.intValue("max-message", DEFAULT_MAX_MESSAGE, 1, Integer.MAX_VALUE - 8);
        Workload workload = workload(args, maxMessage);
        double loadMbps = args.doubleValue("load-mbps", null, 0, 10_000_000);
        double duration = args.doubleValue("duration", null, 0, 86_400);
        double warmup = seconds(args, "warmup", 2);
        double drain = seconds(args, "drain", 10);
        int maxOutstanding = args.intValue("max-outstanding", DEFAULT_MAX_OUTSTANDING, 1, 1_000_000);
        int maxWaiting = args.intValue("max-waiting", 100_000, 0, 10_000_000);
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        int spinUs = args.intValue("spin-us", 50, 0, 10_000);
        InetAddress bind = args.address("bind", InetAddress.getLoopbackAddress());
        int linkMbps = args.intValue("link-mbps", DEFAULT_LINK_MBPS, 1, 1_000_000);
        int rttUs = args.intValue("rtt-us", DEFAULT_RTT_US, 1, 1_000_000);
        int connections = args.intValue("tcp-connections", TransportOptions.DEFAULT_TCP_CONNECTIONS, 1, 1_024);
        String progress = args.string("progress", "auto");
        if (!Set.of("auto", "cr", "lines", "none").contains(progress)) {
            throw new UsageException("client: --progress must be auto, cr, lines or none: " + progress);
        }
        Path out = Path.of(args.required("out"));
        DriverConfig driver = new DriverConfig(workload, loadMbps, nanos(warmup), nanos(duration), maxOutstanding,
                maxWaiting, nanos(drain), TimeUnit.MICROSECONDS.toNanos(spinUs), seed);
        TransportOptions transport = new TransportOptions(bind, 0, linkMbps, rttUs, maxMessage, connections,
                CliOption.linkFramingBytes(args));
        return new Plan(protocol, servers, transport, driver, out, progress);
    }

    private static double seconds(Args args, String name, double defaultValue) throws UsageException {
        if (!args.has(name)) {
            return defaultValue;
        }
        return args.doubleValue(name, null, -1e-9, 86_400);
    }

    private static long nanos(double seconds) {
        return (long) (seconds * 1e9);
    }

    /** Connects, runs, writes DIR/results.csv and DIR/histograms.csv, prints the summary line on {@code out}. */
    static RunStats execute(Plan plan, PrintStream out, PrintStream err) throws Exception {
        return execute(plan, null, out, err);
    }

    /** As {@link #execute(Plan, PrintStream, PrintStream)}, as the client of {@code local} (null: on its own). */
    static RunStats execute(Plan plan, BenchServer local, PrintStream out, PrintStream err) throws Exception {
        LatencyRecorder recorder = new LatencyRecorder(LengthBuckets.forWorkload(plan.driver().workload()));
        RunStats stats;
        OpenLoopDriver driver;
        try (BenchClient client = plan.protocol().connect(plan.servers(), plan.transport(), local)) {
            err.println(client.describe());
            err.println(String.format(Locale.ROOT, "%s: workload %s (mean %.0f B), offered %.1f Mbit/s"
                            + " (%.0f requests/s), %d length buckets %s", plan.protocol().id(),
                    plan.driver().workload(), plan.driver().workload().meanBytes(), plan.driver().loadMbps(),
                    1e9 / plan.driver().meanGapNanos(), recorder.buckets().count(), recorder.buckets()));
            driver = new OpenLoopDriver(plan.driver(), client, recorder, progress(plan, err));
            stats = driver.run(plan.protocol().id());
            if (!client.statistics().isEmpty()) {
                err.println(client.statistics());
            }
        }
        if (!"none".equals(plan.progress()) && mode(plan).equals("cr")) {
            err.println();
        }
        ResultSet results = new ResultSet().addRecorder(plan.protocol().id(), recorder);
        ResultsCsv.write(plan.out(), results.rows());
        HistogramsCsv.write(plan.out(), results.rows());
        RunsCsv.write(plan.out(), List.of(new RunsCsv.ClientRun(plan.driver().workload().toString(),
                java.time.Instant.now(), Provenance.commit(), stats)));
        driver.writeLargestCalls(plan.out().resolve("largest-calls.csv"));
        out.println(stats.summaryLine());
        if (stats.failed() > 0 && driver.firstFailure() != null) {
            err.println(plan.protocol().id() + ": first failure: " + driver.firstFailure());
        }
        if (recorder.clamped() > 0) {
            err.println(plan.protocol().id() + ": " + recorder.clamped() + " RTTs above "
                    + LatencyRecorder.HIGHEST_TRACKABLE_NANOS / 1_000_000_000 + " s recorded as that");
        }
        return stats;
    }

    private static String mode(Plan plan) {
        if (!"auto".equals(plan.progress())) {
            return plan.progress();
        }
        return System.console() != null ? "cr" : "lines";
    }

    private static OpenLoopDriver.Progress progress(Plan plan, PrintStream err) {
        String mode = mode(plan);
        if (mode.equals("none")) {
            return null;
        }
        String id = plan.protocol().id();
        long[] lastLine = {0};
        return (elapsed, total, sent, completed, outstanding) -> {
            String line = String.format(Locale.ROOT, "[%s] %5.1f / %.1f s  sent %d  completed %d  outstanding %d",
                    id, elapsed / 1e9, total / 1e9, sent, completed, outstanding);
            if (mode.equals("cr")) {
                err.print("\r" + line + "   ");
                err.flush();
            } else if (elapsed - lastLine[0] >= 5_000_000_000L || elapsed == total) {
                lastLine[0] = elapsed;
                err.println(line);
            }
        };
    }
}
