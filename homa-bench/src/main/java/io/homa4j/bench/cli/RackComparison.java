package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.driver.SlowdownRecorder;
import io.homa4j.bench.rack.LinkRateCalibration;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.simulate.IdealRack;
import io.homa4j.bench.transport.Protocol;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code compare} in the emulated rack ({@link Rack}: one host per network namespace, a switch with priority
 * queues, links at {@code --link-mbps}). Before the repeats, three short phases: the calibration picks the link
 * rate for this machine ({@link LinkRateCalibration}: Homa alone on the rack at the ladder's rates, how busy the
 * machine got), the idle rack gives each protocol's unloaded RTT by length (the rack script's
 * {@code --unloaded-only}), and the simulator gives Homa's limit on the same rack ({@link IdealRack}). Then each
 * repeat is one run of the rack script, which runs every protocol on a fresh rack, one node JVM per host, the
 * clients recording each call's slowdown against the unloaded RTT; this class reads the hosts' results back into
 * the report.
 */
final class RackComparison implements Comparison {
    private static final Pattern PROGRESS = Pattern.compile("compare\\.sh: ([a-z0-9-]+): \\d+ hosts serving");
    private static final int LOG_TAIL_LINES = 15;
    /** The rack script's switch buffers, frames per priority queue and port (its default). */
    static final int BUFFER_PACKETS = 200;
    /** A calibration run: Homa alone, this long after this much warm-up, at the plan's load. */
    static final double CALIBRATION_WARMUP_SECONDS = 15;
    static final double CALIBRATION_SECONDS = 8;
    /** The simulated limit gets this many times the calls the repeats give the largest bucket. */
    static final int IDEAL_CALLS_FACTOR = 3;

    private ComparePlan plan;
    private final ComparePlan.RackSetup setup;
    private final IntFunction<ComparePlan> atLinkMbps;
    private final boolean calibrate;

    /**
     * @param plan       the comparison at the rate given or the default one
     * @param atLinkMbps the same comparison at another link rate (every rate-dependent default resolved again)
     * @param calibrate  true: choose the rate from the ladder; false: check the plan's rate (given by hand)
     */
    RackComparison(ComparePlan plan, IntFunction<ComparePlan> atLinkMbps, boolean calibrate) {
        this.plan = plan;
        this.setup = plan.rack();
        this.atLinkMbps = atLinkMbps;
        this.calibrate = calibrate;
    }

    /** The rack script's options for repeat {@code repeat}: the protocols in that repeat's order. */
    List<String> scriptArgs(int repeat) {
        List<String> args = rackArgs(plan.linkMbps(), plan.seed(repeat));
        args.addAll(List.of("--duration", Converters.number(plan.durationSeconds()),
                "--warmup", Converters.number(plan.warmupSeconds()),
                "--out", plan.repeatDir(repeat).toString(),
                "--protocols", String.join(",", plan.order(repeat).stream().map(Protocol::id).toList())));
        return args;
    }

    /** The options every run of the rack script shares (the rack, the workload, the load). */
    private List<String> rackArgs(int linkMbps, long seed) {
        return new ArrayList<>(List.of("--hosts", Integer.toString(setup.hosts()),
                "--link-mbps", Integer.toString(linkMbps), "--workload", WorkloadOption.spec(plan.workload()),
                "--max-message", Integer.toString(plan.maxMessage()), "--load", Double.toString(plan.load()),
                "--rtt-us", plan.rttUs() == null ? "auto" : Integer.toString(plan.rttUs()),
                "--seed", Long.toString(seed), "--max-outstanding", Integer.toString(plan.maxOutstanding()),
                "--tcp-connections", Integer.toString(plan.tcpConnections()),
                "--buffer-pkts", Integer.toString(BUFFER_PACKETS), "--host-queues", setup.hostQueues().toString()));
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        long started = System.nanoTime();
        try (Rack rack = Rack.open(setup.prefix())) {
            LinkRateCalibration.Choice choice;
            try {
                choice = calibrate ? LinkRateCalibration.choose(rate -> calibrationBusy(rack, rate, out))
                        : LinkRateCalibration.check(plan.linkMbps(), rate -> calibrationBusy(rack, rate, out));
            } catch (LinkRateCalibration.Refused e) {
                err.println("compare: refused: " + e.getMessage());
                return Cli.FAILED;
            }
            out.println("compare: calibration: " + choice.reason());
            plan = atLinkMbps.apply(choice.linkMbps());
            CompareReport report = new CompareReport(plan);
            report.addNote("calibration: " + choice.reason());
            double perProtocol = 12 + plan.warmupSeconds() + plan.durationSeconds();
            out.println(String.format(Locale.ROOT, "compare: emulated rack (%s-*%s): %d hosts, %d Mbit/s links, %s"
                            + " at load %.2f, %d repeats x %s s + %s s warm-up per protocol; about %.0f min more;"
                            + " out %s", setup.prefix(), Rack.rootlessHere() ? ", rootless" : "", setup.hosts(),
                    plan.linkMbps(), plan.workload(), plan.load(), plan.repeats(),
                    Converters.number(plan.durationSeconds()), Converters.number(plan.warmupSeconds()),
                    Math.ceil((perProtocol * plan.protocols().size() + 5) * plan.repeats() / 60 + 1.5),
                    plan.outDir()));
            out.flush();
            Path unloadedDir = plan.outDir().resolve("unloaded");
            if (!measureUnloaded(rack, unloadedDir, report, out, err)) {
                return Cli.FAILED;
            }
            simulateIdeal(report, out);
            for (int r = 1; r <= plan.repeats(); r++) {
                Path dir = plan.repeatDir(r);
                Path log = dir.resolve("compare.log");
                int repeat = r;
                List<String> args = new ArrayList<>(scriptArgs(r));
                args.addAll(List.of("--unloaded-dir", unloadedDir.toString()));
                int code = rack.compare(args, log, line -> {
                    Matcher m = PROGRESS.matcher(line);
                    if (m.find()) {
                        out.println(String.format(Locale.ROOT, "compare: repeat %d/%d: %s running (%s s + %s s"
                                        + " warm-up; %.0f s since the start)", repeat, plan.repeats(), m.group(1),
                                Converters.number(plan.durationSeconds()), Converters.number(plan.warmupSeconds()),
                                (System.nanoTime() - started) / 1e9));
                        out.flush();
                    } else if (line.contains("WARNING") || line.contains("exited with") || line.contains("still running")
                            || line.contains("not serving") || line.contains("JVM in")) {
                        err.println(line);
                    }
                });
                if (code != 0) {
                    return failed("the rack run of repeat " + r, code, log, err);
                }
                ResultSet repeatResults = new ResultSet();
                ResultSet repeatSlowdowns = new ResultSet();
                for (Protocol protocol : plan.order(r)) {
                    report.addRuns(r, protocol, readClients(dir.resolve(protocol.id()), repeatResults,
                            repeatSlowdowns));
                }
                report.addRepeat(repeatResults);
                report.addSlowdowns(repeatSlowdowns);
                CompareReport.rackCpu(r, dir.resolve("cpu.csv")).forEach(report::addNote);
                CompareReport.rackLosses(r, dir.resolve("losses.csv")).forEach(report::addNote);
            }
            return report.finish(String.format(Locale.ROOT, "emulated rack, %d hosts, %d Mbit/s links",
                    setup.hosts(), plan.linkMbps()), out);
        }
    }

    /**
     * One calibration run: Homa alone on the rack at {@code linkMbps} and the plan's load; returns the share of the
     * machine the rack took over its measured seconds.
     */
    private double calibrationBusy(Rack rack, int linkMbps, PrintStream out) throws IOException,
            InterruptedException {
        Path dir = plan.outDir().resolve("calibration").resolve("link-" + linkMbps);
        out.println(String.format(Locale.ROOT, "compare: calibration: Homa on the rack at %d Mbit/s for %s s after"
                        + " %s s of warm-up", linkMbps, Converters.number(CALIBRATION_SECONDS),
                Converters.number(CALIBRATION_WARMUP_SECONDS)));
        out.flush();
        List<String> args = rackArgs(linkMbps, plan.seed(1));
        args.addAll(List.of("--protocols", Protocol.HOMA.id(), "--out", dir.toString(),
                "--warmup", Converters.number(CALIBRATION_WARMUP_SECONDS),
                "--duration", Converters.number(CALIBRATION_SECONDS)));
        Path log = dir.resolve("compare.log");
        int code = rack.compare(args, log, line -> { });
        if (code != 0) {
            throw new IOException("the calibration run at " + linkMbps + " Mbit/s failed (exit " + code + "); see "
                    + log);
        }
        return rackSharePct(dir.resolve("cpu.csv"), Protocol.HOMA.id());
    }

    /**
     * The share of the machine the rack took in {@code protocol}'s row of the rack script's {@code cpu.csv}: its
     * JVMs ({@code rack_jvm_pct}) and the kernel's packet processing ({@code softirq_pct}); what else ran on the
     * machine ({@code outside_rack_pct}) is not the rack's.
     */
    static double rackSharePct(Path cpuCsv, String protocol) throws IOException {
        List<String> rows = Files.readAllLines(cpuCsv);
        for (String row : rows.subList(Math.min(1, rows.size()), rows.size())) {
            String[] c = row.split(",");
            if (c.length >= 9 && c[0].equals(protocol)) {
                try {
                    return Double.parseDouble(c[7]) + Double.parseDouble(c[4]);
                } catch (NumberFormatException e) {
                    throw new IOException(cpuCsv + ": bad CPU shares: " + row, e);
                }
            }
        }
        throw new IOException(cpuCsv + ": no row for " + protocol);
    }

    /** Every protocol's unloaded RTT by length on the idle rack, into {@code dir} and the report. */
    private boolean measureUnloaded(Rack rack, Path dir, CompareReport report, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        out.println("compare: unloaded RTT by length on the idle rack, one call at a time, for "
                + String.join(" and ", plan.protocols().stream().map(Protocol::id).toList()));
        out.flush();
        List<String> args = rackArgs(plan.linkMbps(), plan.seed(1));
        args.addAll(List.of("--unloaded-only", "--out", dir.toString(), "--protocols",
                String.join(",", plan.protocols().stream().map(Protocol::id).toList())));
        Path log = dir.resolve("compare.log");
        int code = rack.compare(args, log, line -> { });
        if (code != 0) {
            failed("the unloaded-RTT run", code, log, err);
            return false;
        }
        for (Protocol protocol : plan.protocols()) {
            RttByLength table = RttByLength.read(dir.resolve("unloaded-" + protocol.id() + ".csv"));
            report.setUnloaded(protocol.id(), table);
            String line = String.format(Locale.ROOT, "unloaded RTT, %s: %.0f us at 1 B, %.0f us at 1,000 B, %.1f ms"
                            + " at %,d B", protocol.id(), table.rttNanos(1) / 1e3, table.rttNanos(1_000) / 1e3,
                    table.rttNanos(plan.maxMessage()) / 1e6, plan.maxMessage());
            out.println("compare: " + line);
            report.addNote(line);
        }
        return true;
    }

    /** Homa on the same rack with ideal hosts, in the simulator (virtual time; its own CPU only). */
    private void simulateIdeal(CompareReport report, PrintStream out) {
        if (!(plan.load() < 1)) {
            String line = "homa-ideal: not simulated: the simulator offers loads below 1 only";
            out.println("compare: " + line);
            report.addNote(line);
            return;
        }
        IdealRack.Spec spec = new IdealRack.Spec(setup.hosts(), plan.linkMbps(), BUFFER_PACKETS, plan.workload(),
                plan.load(), plan.seed(1), plan.maxOutstanding(),
                CompareCommand.LARGEST_BUCKET_CALLS * IDEAL_CALLS_FACTOR);
        out.println("compare: homa-ideal: the same rack in the simulator, hosts ideal: " + spec.rack());
        out.flush();
        long start = System.nanoTime();
        IdealRack.Result result = IdealRack.run(spec, null);
        report.setIdeal(result);
        String line = String.format(Locale.ROOT, "homa-ideal: %,d calls in %.1f s of virtual time (%,d unfinished,"
                        + " %,d failed), simulated in %.0f s", result.simulation().measured(),
                result.simulation().virtualNanos() / 1e9, result.simulation().unfinished(),
                result.simulation().failed(), (System.nanoTime() - start) / 1e9);
        out.println("compare: " + line);
        report.addNote(line);
    }

    private static int failed(String what, int code, Path log, PrintStream err) {
        err.println("compare: " + what + " failed (exit " + code + "); the end of " + log + ":");
        tail(log).forEach(err::println);
        return Cli.FAILED;
    }

    /**
     * The hosts' client results of one protocol: histograms into {@code results}, slowdown histograms (where the
     * clients recorded them) into {@code slowdowns}, their runs returned.
     */
    private static List<RunStats> readClients(Path protocolDir, ResultSet results, ResultSet slowdowns)
            throws IOException {
        List<RunStats> clients = new ArrayList<>();
        try (Stream<Path> nodes = Files.list(protocolDir)) {
            for (Path client : nodes.filter(p -> p.getFileName().toString().startsWith("client-")).sorted()
                    .toList()) {
                results.addAll(HistogramsCsv.read(client.resolve(HistogramsCsv.FILE_NAME)));
                Path slowdown = client.resolve(SlowdownRecorder.FILE_NAME);
                if (Files.exists(slowdown)) {
                    slowdowns.addAll(HistogramsCsv.read(slowdown));
                }
                RunsCsv.readIfPresent(client).forEach(run -> clients.add(run.stats()));
            }
        }
        return clients;
    }

    private static List<String> tail(Path file) {
        try {
            List<String> all = Files.readAllLines(file);
            return all.subList(Math.max(0, all.size() - LOG_TAIL_LINES), all.size());
        } catch (IOException e) {
            return List.of("(no log: " + e.getMessage() + ")");
        }
    }
}
