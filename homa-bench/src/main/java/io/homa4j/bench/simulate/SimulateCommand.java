package io.homa4j.bench.simulate;

import io.homa4j.bench.cli.BenchCommand;
import io.homa4j.bench.cli.Bounds;
import io.homa4j.bench.cli.Cli;
import io.homa4j.bench.cli.HelpOption;
import io.homa4j.bench.cli.ResultsFile;
import io.homa4j.bench.cli.SeedOption;
import io.homa4j.bench.cli.UsageException;
import io.homa4j.bench.cli.WorkloadOption;
import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RttPlot;
import io.homa4j.bench.report.SlowdownCsv;
import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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
@Command(name = "simulate", sortOptions = false, description = {"A virtual-time rack on the real engine; writes"
        + " DIR/results.csv, slowdown.csv, slowdown.svg and summary.txt.", "Runs in a child JVM on -XX:+UseParallelGC"
        + " unless --in-process or a collector is chosen."})
public final class SimulateCommand implements BenchCommand {
    private static final long WALL_PROGRESS_NANOS = 2_000_000_000L;
    static final String SUMMARY_FILE = "summary.txt";

    /** Whether progress lines are printed. */
    enum Progress {
        LINES,
        NONE;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Spec
    CommandSpec spec;

    @Mixin
    HelpOption help;

    @Bounds(min = 2, max = 1_024)
    @Option(names = "--hosts", paramLabel = "N", description = "hosts of the rack (default " + RackSpec.DEFAULT_HOSTS
            + ")")
    int hosts = RackSpec.DEFAULT_HOSTS;

    @Bounds(min = 1, max = 1_000)
    @Option(names = "--link-gbps", paramLabel = "N", description = "link rate, Gbit/s (default "
            + RackSpec.DEFAULT_LINK_GBPS + ")")
    Integer linkGbps;

    @Bounds(min = 1, max = RackSpec.MAX_LINK_MBPS)
    @Option(names = "--link-mbps", paramLabel = "N", description = "link rate in Mbit/s instead of --link-gbps (for"
            + " links below 1 Gbit/s, such as the emulated rack's)")
    Integer linkMbps;

    @Mixin
    WorkloadOption workload;

    @Bounds(min = 0, minExclusive = true, max = 0.999)
    @Option(names = "--load", paramLabel = "L", description = "offered load, a fraction of the links (default 0.8)")
    double load = 0.8;

    @Option(names = "--load-basis", paramLabel = "BASIS", description = "what the load counts: ${COMPLETION-CANDIDATES}:"
            + " bytes on the wire or message bytes (default wire)")
    LoadBasis loadBasis = LoadBasis.WIRE;

    @Bounds(min = 0, minExclusive = true, max = 100_000)
    @Option(names = "--duration-ms", paramLabel = "MS", description = "measured virtual milliseconds (default 10)")
    double durationMs = 10;

    @Bounds(min = 0, max = 100_000)
    @Option(names = "--warmup-ms", paramLabel = "MS", description = "virtual milliseconds before measuring (default a"
            + " fifth of the duration)")
    Double warmupMs;

    @Bounds(min = 0, max = 1_000_000)
    @Option(names = "--drain-ms", paramLabel = "MS", description = "virtual milliseconds the last calls may take"
            + " (default twice the duration, at least 20)")
    Double drainMs;

    @Mixin
    SeedOption seed;

    @Option(names = "--protocol", paramLabel = "PROTOCOL",
            description = "the transport: ${COMPLETION-CANDIDATES} (default homa)")
    SimProtocol protocol = SimProtocol.HOMA;

    @Bounds(min = 1, max = 8)
    @Option(names = "--priorities", paramLabel = "N", description = "homa ablation: priority levels, 1 to 8")
    Integer priorities;

    @Bounds(min = 1, max = 1_024)
    @Option(names = "--overcommit", paramLabel = "N", description = "homa ablation: messages granted at once")
    Integer overcommit;

    @Option(names = "--no-srpt", description = "homa ablation: grant in arrival order, not SRPT")
    boolean noSrpt;

    @Bounds(min = 1, max = 1_000_000_000)
    @Option(names = "--pacer-queue-ns", paramLabel = "N", description = "homa: the pacer's queue limit")
    Long pacerQueueNs;

    @Bounds(min = 0, max = 0.5)
    @Option(names = "--fifo-fraction", paramLabel = "F", description = "homa ablation: the FIFO share of grants and of"
            + " the senders' picks, 0 to 0.5 (default 0.05)")
    Double fifoFraction;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--rtt-budget-us", paramLabel = "N", description = "homa ablation: the RTT budget unscheduled"
            + " bytes and grant windows are sized from (default: the rack's full-packet round trip)")
    Integer rttBudgetUs;

    @Bounds(min = 1, max = Integer.MAX_VALUE - 8)
    @Option(names = "--max-message", paramLabel = "B", description = "longest message; the workload is cut there")
    Integer maxMessage;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--max-outstanding", paramLabel = "N", description = "calls in flight per host (default 1000)")
    int maxOutstanding = 1_000;

    @Bounds(min = 0, max = 1_000_000)
    @Option(names = "--propagation-ns", paramLabel = "N", description = "per-link propagation delay (default "
            + RackSpec.DEFAULT_PROPAGATION_NANOS + ")")
    long propagationNs = RackSpec.DEFAULT_PROPAGATION_NANOS;

    @Bounds(min = 0, max = 1_000_000)
    @Option(names = "--switch-latency-ns", paramLabel = "N", description = "switch latency (default "
            + RackSpec.DEFAULT_SWITCH_LATENCY_NANOS + ")")
    long switchLatencyNs = RackSpec.DEFAULT_SWITCH_LATENCY_NANOS;

    @Bounds(min = 2, max = 1L << 30)
    @Option(names = "--port-buffer-kb", paramLabel = "N", description = "switch buffer per port (default "
            + (RackSpec.DEFAULT_PORT_BUFFER_BYTES >> 10) + ")")
    long portBufferKb = RackSpec.DEFAULT_PORT_BUFFER_BYTES >> 10;

    @Bounds(min = 2, max = 1L << 30)
    @Option(names = "--shared-buffer-kb", paramLabel = "N", description = "switch buffer shared by the ports (default "
            + (RackSpec.DEFAULT_SHARED_BUFFER_BYTES >> 10) + ")")
    long sharedBufferKb = RackSpec.DEFAULT_SHARED_BUFFER_BYTES >> 10;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default results/simulate)")
    Path out = Path.of("results", "simulate");

    @Option(names = "--progress", paramLabel = "MODE", description = "progress lines: ${COMPLETION-CANDIDATES} (default"
            + " lines)")
    Progress progress = Progress.LINES;

    @Option(names = ThroughputCollector.IN_PROCESS, description = "run in this JVM, whatever its collector")
    boolean inProcess;

    /** A parsed command line: the simulation, where its files go, and whether it prints progress. */
    record Invocation(SimulationPlan plan, Path outDir, boolean progress) {
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        Invocation inv = invocation();
        if (!inProcess && ThroughputCollector.shouldRelaunch()) {
            out.println("simulate: running in a child JVM with " + ThroughputCollector.FLAG
                    + " (the throughput collector; " + ThroughputCollector.IN_PROCESS + " stays in this one)");
            out.flush();
            return ThroughputCollector.runChild(Cli.givenArgs(spec.commandLine().getParseResult()));
        }
        execute(inv, Cli.givenArgs(spec.commandLine().getParseResult()), out);
        return Cli.OK;
    }

    /** The simulation these options describe. */
    Invocation invocation() throws UsageException {
        Workload cut = this.workload.workload();
        int engineMax = HomaConfig.defaults().maxMessageBytes();
        if (maxMessage != null) {
            if (maxMessage > engineMax) {
                throw new UsageException("simulate: --max-message must be in [1, " + engineMax + "]: " + maxMessage);
            }
            cut = cut.truncatedAt(maxMessage);
        } else if (cut.quantile(1.0) > engineMax) {
            throw new UsageException("simulate: the workload's longest message exceeds " + engineMax
                    + " B; give --max-message");
        }
        if (protocol == SimProtocol.FIFO_BASELINE && (priorities != null || overcommit != null || noSrpt
                || fifoFraction != null || rttBudgetUs != null)) {
            throw new UsageException("simulate: --priorities, --overcommit, --no-srpt, --fifo-fraction and"
                    + " --rtt-budget-us are ablations of homa; fifo-baseline has none of those mechanisms");
        }
        double warmup = warmupMs != null ? warmupMs : durationMs / 5;
        double drain = drainMs != null ? drainMs : Math.max(20, 2 * durationMs);
        if (linkGbps != null && linkMbps != null) {
            throw new UsageException("simulate: give --link-gbps or --link-mbps, not both");
        }
        int rateMbps = linkMbps != null ? linkMbps
                : (linkGbps != null ? linkGbps : RackSpec.DEFAULT_LINK_GBPS) * 1_000;
        RackSpec rack = new RackSpec(hosts, rateMbps, propagationNs, switchLatencyNs, portBufferKb << 10,
                sharedBufferKb << 10);
        ProtocolSetup setup = new ProtocolSetup(protocol, priorities != null ? priorities : 0,
                overcommit != null ? overcommit : 0, !noSrpt, pacerQueueNs != null ? pacerQueueNs : 0,
                fifoFraction != null ? fifoFraction : -1, rttBudgetUs != null ? rttBudgetUs : 0);
        SimulationPlan plan = new SimulationPlan(rack, setup, cut, load, loadBasis, millisToNanos(warmup),
                millisToNanos(durationMs), millisToNanos(drain), seed.seed(), maxOutstanding);
        return new Invocation(plan, out, progress == Progress.LINES);
    }

    private static long millisToNanos(double ms) {
        return Math.round(ms * 1e6);
    }

    /** Calibrates, runs, writes the files and prints the table; returns the result. */
    static SimulationResult execute(Invocation inv, List<String> argv, PrintStream out) throws IOException {
        ResultsFile record = ResultsFile.start("simulate", argv);
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
        SlowdownCsv.write(dir, SlowdownCsv.rows(protocol, slowdowns, plan.workload(), unloaded.table()));
        String title = String.format(Locale.ROOT, "%s, %.0f%% load (%s), %d x %s simulated: %s",
                plan.workload(), plan.load() * 100, plan.basis().id(), plan.rack().hosts(), plan.rack().rateLabel(),
                plan.setup().describe());
        Files.writeString(dir.resolve("slowdown.svg"),
                RttPlot.render(slowdowns, title, plotNotes(result), "Slowdown (RTT / unloaded RTT, log scale)", 2,
                        RttPlot::slowdownLabel),
                StandardCharsets.UTF_8);

        List<String> report = new ArrayList<>(header);
        report.add(String.format(Locale.ROOT, "unloaded RTT table: %d idle RPCs, %.1f s wall", unloaded.points(),
                calibrationSeconds));
        report.addAll(summary(plan, result));
        report.add("");
        report.addAll(table(result, unloaded));
        record.write(dir.resolve(SUMMARY_FILE), report);
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
