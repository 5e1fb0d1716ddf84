package io.homa4j.bench.simulate;

import io.homa4j.bench.cli.Args;
import io.homa4j.bench.cli.Cli;
import io.homa4j.bench.cli.CliOption;
import io.homa4j.bench.cli.Command;
import io.homa4j.bench.cli.UsageException;
import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RttPlot;
import io.homa4j.bench.workload.Workload;
import io.homa4j.bench.workload.Workloads;
import io.homa4j.core.HomaConfig;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code simulate}: the datacenter-scale study in virtual time (see {@code docs/simulation.md}). Measures the
 * unloaded RTT table, runs the loaded rack, then writes {@code results.csv} (RTT, the {@code compare} header),
 * {@code histograms.csv} (mergeable with {@code merge}), {@code slowdown.csv}, {@code slowdown.svg} and
 * {@code summary.txt} into the output directory, printing progress and the table.
 */
public final class SimulateCommand implements Command {
    private static final long WALL_PROGRESS_NANOS = 2_000_000_000L;

    @Override
    public String name() {
        return "simulate";
    }

    @Override
    public String[] description() {
        return new String[] {"A virtual-time rack on the real engine; writes DIR/results.csv, slowdown.csv and"
                + " slowdown.svg.", "Runs in a child JVM on -XX:+UseParallelGC unless --in-process or a collector is"
                + " chosen."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.value("hosts", "N", "hosts of the rack (default " + RackSpec.DEFAULT_HOSTS + ")"),
                CliOption.value("link-gbps", "N", "link rate (default " + RackSpec.DEFAULT_LINK_GBPS + ")"),
                CliOption.workload(),
                CliOption.value("load", "L", "offered load, a fraction of the links (default 0.8)"),
                CliOption.value("load-basis", "wire|data", "what the load counts: bytes on the wire or message"
                        + " bytes (default wire)"),
                CliOption.value("duration-ms", "MS", "measured virtual milliseconds (default 10)"),
                CliOption.value("warmup-ms", "MS", "virtual milliseconds before measuring (default a fifth of the"
                        + " duration)"),
                CliOption.value("drain-ms", "MS", "virtual milliseconds the last calls may take (default twice the"
                        + " duration, at least 20)"),
                CliOption.seed(),
                CliOption.value("protocol", "homa|fifo-baseline", "the transport (default homa)"),
                CliOption.value("priorities", "N", "homa ablation: priority levels, 1 to 8"),
                CliOption.value("overcommit", "N", "homa ablation: messages granted at once"),
                CliOption.flag("no-srpt", "homa ablation: grant in arrival order, not SRPT"),
                CliOption.value("pacer-queue-ns", "N", "homa: the pacer's queue limit"),
                CliOption.value("fifo-fraction", "F", "homa ablation: the FIFO share of grants and of the senders'"
                        + " picks, 0 to 0.5 (default 0.05)"),
                CliOption.value("rtt-budget-us", "N", "homa ablation: the RTT budget unscheduled bytes and grant"
                        + " windows are sized from (default: the rack's full-packet round trip)"),
                CliOption.value("max-message", "B", "longest message; the workload is cut there"),
                CliOption.value("max-outstanding", "N", "calls in flight per host (default 1000)"),
                CliOption.value("propagation-ns", "N", "per-link propagation delay (default "
                        + RackSpec.DEFAULT_PROPAGATION_NANOS + ")"),
                CliOption.value("switch-latency-ns", "N", "switch latency (default "
                        + RackSpec.DEFAULT_SWITCH_LATENCY_NANOS + ")"),
                CliOption.value("port-buffer-kb", "N", "switch buffer per port (default "
                        + (RackSpec.DEFAULT_PORT_BUFFER_BYTES >> 10) + ")"),
                CliOption.value("shared-buffer-kb", "N", "switch buffer shared by the ports (default "
                        + (RackSpec.DEFAULT_SHARED_BUFFER_BYTES >> 10) + ")"),
                CliOption.value("out", "DIR", "output directory (default results/simulate)"),
                CliOption.value("progress", "lines|none", "progress lines (default lines)"),
                CliOption.flag("in-process", "run in this JVM, whatever its collector"));
    }

    /** A parsed command line. */
    record Invocation(SimulationPlan plan, Path outDir, boolean progress) {
    }

    /** Runs {@code simulate} with the parsed options; bad values throw {@link UsageException}. */
    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        Invocation inv = parse(args);
        if (!args.flag("in-process") && ThroughputCollector.shouldRelaunch()) {
            out.println("simulate: running in a child JVM with " + ThroughputCollector.FLAG
                    + " (the throughput collector; " + ThroughputCollector.IN_PROCESS + " stays in this one)");
            out.flush();
            return ThroughputCollector.runChild(args.tokens());
        }
        execute(inv, out);
        return Cli.OK;
    }

    static Invocation parse(Args args) throws UsageException {
        int hosts = args.intValue("hosts", RackSpec.DEFAULT_HOSTS, 2, 1_024);
        int gbps = args.intValue("link-gbps", RackSpec.DEFAULT_LINK_GBPS, 1, 1_000);
        long propagation = args.longValue("propagation-ns", RackSpec.DEFAULT_PROPAGATION_NANOS, 0, 1_000_000);
        long switchLatency = args.longValue("switch-latency-ns", RackSpec.DEFAULT_SWITCH_LATENCY_NANOS, 0,
                1_000_000);
        long portKb = args.longValue("port-buffer-kb", RackSpec.DEFAULT_PORT_BUFFER_BYTES >> 10, 2, 1L << 30);
        long sharedKb = args.longValue("shared-buffer-kb", RackSpec.DEFAULT_SHARED_BUFFER_BYTES >> 10, 2, 1L << 30);
        Workload workload;
        String spec = args.string("workload", "w4");
        try {
            workload = Workloads.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new UsageException("simulate: --" + e.getMessage());
        }
        int engineMax = HomaConfig.defaults().maxMessageBytes();
        if (args.has("max-message")) {
            workload = workload.truncatedAt(args.intValue("max-message", null, 1, engineMax));
        } else if (workload.quantile(1.0) > engineMax) {
            throw new UsageException("simulate: the workload's longest message exceeds " + engineMax
                    + " B; give --max-message");
        }
        double load = args.doubleValue("load", 0.8, 0, 0.999);
        LoadBasis basis;
        try {
            basis = LoadBasis.parse(args.string("load-basis", "wire"));
        } catch (IllegalArgumentException e) {
            throw new UsageException("simulate: " + e.getMessage());
        }
        double durationMs = args.doubleValue("duration-ms", 10.0, 0, 100_000);
        double warmupMs = args.has("warmup-ms") ? args.doubleValue("warmup-ms", null, -1e-9, 100_000)
                : durationMs / 5;
        double drainMs = args.has("drain-ms") ? args.doubleValue("drain-ms", null, -1e-9, 1_000_000)
                : Math.max(20, 2 * durationMs);
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        SimProtocol protocol;
        try {
            protocol = SimProtocol.parse(args.string("protocol", "homa"));
        } catch (IllegalArgumentException e) {
            throw new UsageException("simulate: " + e.getMessage());
        }
        int priorities = args.has("priorities") ? args.intValue("priorities", null, 1, 8) : 0;
        int overcommit = args.has("overcommit") ? args.intValue("overcommit", null, 1, 1_024) : 0;
        boolean srpt = !args.flag("no-srpt");
        double fifoFraction = args.has("fifo-fraction") ? args.doubleValue("fifo-fraction", null, 0, 0.5) : -1;
        int rttUs = args.has("rtt-budget-us") ? args.intValue("rtt-budget-us", null, 1, 1_000_000) : 0;
        if (protocol == SimProtocol.FIFO_BASELINE && (priorities > 0 || overcommit > 0 || !srpt || fifoFraction >= 0
                || rttUs > 0)) {
            throw new UsageException("simulate: --priorities, --overcommit, --no-srpt, --fifo-fraction and"
                    + " --rtt-budget-us are ablations of homa; fifo-baseline has none of those mechanisms");
        }
        long pacerQueue = args.has("pacer-queue-ns") ? args.longValue("pacer-queue-ns", null, 1, 1_000_000_000) : 0;
        int maxOutstanding = args.intValue("max-outstanding", 1_000, 1, 1_000_000);
        Path outDir = Path.of(args.string("out", "results/simulate"));
        String progress = args.string("progress", "lines");
        if (!progress.equals("lines") && !progress.equals("none")) {
            throw new UsageException("simulate: --progress must be lines or none: " + progress);
        }
        RackSpec rack = new RackSpec(hosts, gbps, propagation, switchLatency, portKb << 10, sharedKb << 10);
        ProtocolSetup setup = new ProtocolSetup(protocol, priorities, overcommit, srpt, pacerQueue, fifoFraction,
                rttUs);
        SimulationPlan plan = new SimulationPlan(rack, setup, workload, load, basis, millisToNanos(warmupMs),
                millisToNanos(durationMs), millisToNanos(drainMs), seed, maxOutstanding);
        return new Invocation(plan, outDir, progress.equals("lines"));
    }

    private static long millisToNanos(double ms) {
        return Math.round(ms * 1e6);
    }

    /** Calibrates, runs, writes the files and prints the table; returns the result. */
    static SimulationResult execute(Invocation inv, PrintStream out) throws IOException {
        SimulationPlan plan = inv.plan();
        HomaConfig config = plan.homaConfig();
        List<String> header = describe(plan, config);
        header.forEach(line -> out.println("simulate: " + line));
        long calibrationStart = System.nanoTime();
        UnloadedRtt unloaded = UnloadedRtt.measure(plan.rack(), config, plan.maxMessage());
        double calibrationSeconds = (System.nanoTime() - calibrationStart) / 1e9;
        out.println(String.format(Locale.ROOT, "simulate: unloaded RTT table: %d idle RPCs measured in %.1f s wall"
                + " (1 B: %.3f us, %d B: %.3f us)", unloaded.points(), calibrationSeconds, unloaded.rttNanos(1) / 1e3,
                plan.maxMessage(), unloaded.rttNanos(plan.maxMessage()) / 1e3));
        out.flush();
        RackSimulation.Progress progress = inv.progress() ? new ProgressPrinter(out) : null;
        SimulationResult result = new RackSimulation(plan, unloaded).run(progress);

        String protocol = plan.setup().protocol().id();
        ResultSet rtts = new ResultSet().addRecorder(protocol, result.rtt());
        ResultSet slowdowns = new ResultSet().addRecorder(protocol, result.slowdownMilli());
        Path dir = inv.outDir();
        ResultsCsv.write(dir, rtts.rows());
        HistogramsCsv.write(dir, rtts.rows());
        SlowdownCsv.write(dir, protocol, result.slowdownMilli(), unloaded);
        String title = String.format(Locale.ROOT, "%s, %.0f%% load (%s), %d x %d Gb/s simulated: %s",
                plan.workload(), plan.load() * 100, plan.basis().id(), plan.rack().hosts(), plan.rack().linkGbps(),
                plan.setup().describe());
        Files.writeString(dir.resolve("slowdown.svg"),
                RttPlot.render(slowdowns, title, plotNotes(result), "Slowdown (RTT / unloaded RTT, log scale)", 2,
                        decade -> decade >= 0 ? Long.toString((long) Math.pow(10, decade)) : Double.toString(Math.pow(10, decade))),
                StandardCharsets.UTF_8);

        List<String> report = new ArrayList<>(header);
        report.add(String.format(Locale.ROOT, "unloaded RTT table: %d idle RPCs, %.1f s wall", unloaded.points(),
                calibrationSeconds));
        report.addAll(summary(plan, result));
        report.add("");
        report.addAll(table(result, unloaded));
        Files.write(dir.resolve("summary.txt"), report, StandardCharsets.UTF_8);
        out.println();
        summary(plan, result).forEach(line -> out.println("simulate: " + line));
        out.println();
        table(result, unloaded).forEach(out::println);
        out.println("simulate: wrote " + dir.resolve(ResultsCsv.FILE_NAME) + ", " + SlowdownCsv.FILE_NAME
                + ", slowdown.svg, " + HistogramsCsv.FILE_NAME + ", summary.txt");
        return result;
    }

    /** What the curves do not show: calls that failed, and calls recorded at a lower bound. */
    private static List<String> plotNotes(SimulationResult r) {
        List<String> notes = new ArrayList<>();
        if (r.unfinished() > 0) {
            notes.add(String.format(Locale.ROOT, "%,d measured calls unfinished when the run stopped (plotted at their"
                    + " age, a lower bound)", r.unfinished()));
        }
        if (r.failed() > 0) {
            notes.add(String.format(Locale.ROOT, "%,d measured calls failed (not plotted): %s", r.failed(),
                    r.failures()));
        }
        return notes;
    }

    private static List<String> describe(SimulationPlan plan, HomaConfig config) {
        List<String> lines = new ArrayList<>();
        lines.add("rack: " + plan.rack());
        lines.add(String.format(Locale.ROOT, "protocol: %s (%d priority levels, unscheduled %,d B, overcommit %d,"
                        + " %s, RTT budget %d us, pacer queue %,d ns)", plan.setup().describe(),
                config.priorityLevels(), config.unscheduledBytes(), config.maxOvercommit(),
                config.srpt() ? "SRPT" : "oldest first", config.rttMicros(), config.pacerMaxQueueNanos()));
        lines.add(String.format(Locale.ROOT, "traffic: %s, all-to-all open-loop Poisson, echo responses, load %.2f"
                        + " (%s basis) = %,.0f requests/s per host, at most %d outstanding per host",
                plan.workload(), plan.load(), plan.basis().id(), plan.requestsPerSecondPerHost(),
                plan.maxOutstanding()));
        lines.add(String.format(Locale.ROOT, "virtual time: %.3f ms warm-up + %.3f ms measured (+ up to %.3f ms"
                        + " drain under load), seed %d", plan.warmupNanos() / 1e6, plan.durationNanos() / 1e6,
                plan.drainNanos() / 1e6, plan.seed()));
        return lines;
    }

    private static List<String> summary(SimulationPlan plan, SimulationResult r) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "measured calls: %,d completed, %,d unfinished (recorded at their age),"
                + " %,d failed %s", r.measured(), r.unfinished(), r.failed(), r.failures().isEmpty() ? ""
                : r.failures().toString()));
        lines.add(String.format(Locale.ROOT, "mean slowdown %.2f; offered in the window %.1f%% (what its arrivals"
                        + " drew), carried by the links %.1f%%;"
                        + " switch drops %,d; retransmitted packets %,d; max port queue %,d B;"
                        + " max arrivals waiting on one host %,d", r.meanSlowdown(), r.offeredUtilization() * 100, r.linkUtilization() * 100,
                r.drops(), r.retransmittedPackets(), r.maxPortQueueBytes(), r.maxWaiting()));
        lines.add(String.format(Locale.ROOT, "simulator: %,d packets, %,d events, %.3f virtual ms in %.1f s wall"
                        + " (%.1f s CPU): %.2f M packets per wall second, %.2f M per CPU second", r.packets(),
                r.events(), r.virtualNanos() / 1e6, r.wallNanos() / 1e9, r.cpuNanos() / 1e9,
                r.packetsPerWallSecond() / 1e6, r.packetsPerCpuSecond() / 1e6));
        return lines;
    }

    private static List<String> table(SimulationResult r, UnloadedRtt unloaded) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "%12s %9s %10s %10s %10s %9s %9s %9s %11s", "bucket<=B", "count",
                "p50 us", "p99 us", "p99.9 us", "p50 sd", "p99 sd", "mean sd", "unloaded us"));
        LatencyRecorder rtt = r.rtt();
        LengthBuckets buckets = rtt.buckets();
        for (int i = 0; i < buckets.count(); i++) {
            Histogram h = rtt.snapshot(i);
            Histogram s = r.slowdownMilli().snapshot(i);
            int bound = buckets.upperBound(i);
            double base = unloaded.rttNanos(Math.min(bound, unloaded.maxLength())) / 1e3;
            if (h.getTotalCount() == 0) {
                lines.add(String.format(Locale.ROOT, "%12d %9d %10s %10s %10s %9s %9s %9s %11.3f", bound, 0,
                        "-", "-", "-", "-", "-", "-", base));
                continue;
            }
            lines.add(String.format(Locale.ROOT, "%12d %9d %10.1f %10.1f %10.1f %9.2f %9.2f %9.2f %11.3f", bound,
                    h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, s.getValueAtPercentile(50) / 1e3,
                    s.getValueAtPercentile(99) / 1e3, s.getMean() / 1e3, base));
        }
        lines.add("(RTT in microseconds of virtual time; sd = slowdown = RTT / unloaded RTT of the same length)");
        return lines;
    }

    /** Prints a line at most every two wall seconds: progress, and the speed since the previous line. */
    private static final class ProgressPrinter implements RackSimulation.Progress {
        private final PrintStream out;
        private long lastWall;
        private long lastCpu;
        private long lastPackets;

        ProgressPrinter(PrintStream out) {
            this.out = out;
        }

        @Override
        public void update(long virtualNanos, long endNanos, long wallNanos, long cpuNanos, long packets,
                           long pendingMeasured) {
            if (wallNanos - lastWall < WALL_PROGRESS_NANOS) {
                return;
            }
            double dp = packets - lastPackets;
            out.println(String.format(Locale.ROOT, "simulate: %.2f / %.2f virtual ms, wall %.1f s, %.2f M packets per"
                            + " wall s (%.2f M per CPU s) lately, %,d measured calls pending", virtualNanos / 1e6,
                    endNanos / 1e6, wallNanos / 1e9, dp * 1e3 / (wallNanos - lastWall),
                    cpuNanos < 0 ? Double.NaN : dp * 1e3 / Math.max(1, cpuNanos - lastCpu), pendingMeasured));
            out.flush();
            lastWall = wallNanos;
            lastCpu = cpuNanos;
            lastPackets = packets;
        }
    }
}
