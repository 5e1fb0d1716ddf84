package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.transport.Protocol;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code compare} in the emulated rack ({@link Rack}: one host per network namespace, a switch with priority
 * queues, links at {@code --link-mbps}): each repeat is one run of the rack script, which runs every protocol on a
 * fresh rack, one node JVM per host; this class reads the hosts' results back into the report.
 */
final class RackComparison implements Comparison {
    private static final Pattern PROGRESS = Pattern.compile("compare\\.sh: ([a-z0-9-]+): \\d+ hosts serving");
    private static final int LOG_TAIL_LINES = 15;

    private final ComparePlan plan;
    private final ComparePlan.RackSetup setup;

    RackComparison(ComparePlan plan) {
        this.plan = plan;
        this.setup = plan.rack();
    }

    /** The rack script's options for repeat {@code repeat}: the protocols in that repeat's order. */
    List<String> scriptArgs(int repeat) {
        return List.of("--hosts", Integer.toString(setup.hosts()),
                "--link-mbps", Integer.toString(plan.linkMbps()), "--workload", WorkloadOption.spec(plan.workload()),
                "--max-message", Integer.toString(plan.maxMessage()), "--load", Double.toString(plan.load()),
                "--duration", Converters.number(plan.durationSeconds()),
                "--warmup", Converters.number(plan.warmupSeconds()),
                "--rtt-us", plan.rttUs() == null ? "auto" : Integer.toString(plan.rttUs()),
                "--seed", Long.toString(plan.seed(repeat)),
                "--max-outstanding", Integer.toString(plan.maxOutstanding()),
                "--tcp-connections", Integer.toString(plan.tcpConnections()),
                "--out", plan.repeatDir(repeat).toString(),
                "--protocols", String.join(",", plan.order(repeat).stream().map(Protocol::id).toList()));
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        double perProtocol = 12 + plan.warmupSeconds() + plan.durationSeconds();
        out.println(String.format(Locale.ROOT, "compare: emulated rack (%s-*): %d hosts, %d Mbit/s links, %s at"
                        + " load %.2f, %d repeats x %s s + %s s warm-up per protocol; about %.0f min in all; out %s",
                setup.prefix(), setup.hosts(), plan.linkMbps(), plan.workload(), plan.load(), plan.repeats(),
                Converters.number(plan.durationSeconds()), Converters.number(plan.warmupSeconds()),
                Math.ceil((perProtocol * plan.protocols().size() + 5) * plan.repeats() / 60), plan.outDir()));
        out.flush();
        CompareReport report = new CompareReport(plan);
        long started = System.nanoTime();
        try (Rack rack = Rack.open(setup.prefix())) {
            for (int r = 1; r <= plan.repeats(); r++) {
                Path dir = plan.repeatDir(r);
                Path log = dir.resolve("compare.log");
                int repeat = r;
                int code = rack.compare(scriptArgs(r), log, line -> {
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
                    err.println("compare: the rack run of repeat " + r + " failed (exit " + code + "); the end of "
                            + log + ":");
                    tail(log).forEach(err::println);
                    return Cli.FAILED;
                }
                ResultSet repeatResults = new ResultSet();
                for (Protocol protocol : plan.order(r)) {
                    report.addRuns(r, protocol, readClients(dir.resolve(protocol.id()), repeatResults));
                }
                report.addRepeat(repeatResults);
                CompareReport.rackCpu(r, dir.resolve("cpu.csv")).forEach(report::addNote);
                CompareReport.rackLosses(r, dir.resolve("losses.csv")).forEach(report::addNote);
            }
        }
        return report.finish(String.format(Locale.ROOT, "emulated rack, %d hosts, %d Mbit/s links", setup.hosts(),
                plan.linkMbps()), out);
    }

    /** The hosts' client results of one protocol: histograms into {@code results}, their runs returned. */
    private static List<RunStats> readClients(Path protocolDir, ResultSet results) throws IOException {
        List<RunStats> clients = new ArrayList<>();
        try (Stream<Path> nodes = Files.list(protocolDir)) {
            for (Path client : nodes.filter(p -> p.getFileName().toString().startsWith("client-")).sorted()
                    .toList()) {
                results.addAll(HistogramsCsv.read(client.resolve(HistogramsCsv.FILE_NAME)));
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
