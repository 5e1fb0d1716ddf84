package io.homa4j.bench.cli;

import io.homa4j.bench.report.ComparisonTable;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.OverloadVerdict;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RttPlot;
import io.homa4j.bench.report.RunsCsv;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code merge}: adds up the histograms of several client runs and writes the combined results and plot. The
 * clients' {@code runs.csv} say whether any run was overloaded (then the table, the plot and the summary say
 * OVERLOADED) and give the default title: workload, offered load, when and from which commit.
 */
@Command(name = "merge", sortOptions = false, description = "Merges client runs' histograms.csv into"
        + " DIR/results.csv, DIR/histograms.csv and DIR/rtt.svg.")
final class MergeCommand implements BenchCommand {
    static final String SVG_FILE = "rtt.svg";

    /** What one figure shows: all calls merged, the runs behind them, and each repeat's own results. */
    record Figure(ResultSet merged, List<RunsCsv.ClientRun> runs, List<ResultSet> repeats) {
        OverloadVerdict verdict() {
            return OverloadVerdict.of(runs);
        }
    }

    @Mixin
    HelpOption help;

    @Option(names = "--in", required = true, split = ",", paramLabel = "DIR",
            converter = Converters.NonEmptyPath.class, description = "the client runs' output directories")
    List<Path> inputs;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "where the merged results go")
    Path outDir;

    @Option(names = "--title", paramLabel = "T", description = "the figure's title (default: workload, load, date and"
            + " commit from the runs' runs.csv, which also tell OVERLOADED)")
    String title;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        ResultSet results = new ResultSet();
        List<RunsCsv.ClientRun> runs = new ArrayList<>();
        int withoutRuns = 0;
        for (Path dir : inputs) {
            Path file = dir.resolve(HistogramsCsv.FILE_NAME);
            try {
                results.addAll(HistogramsCsv.read(file));
            } catch (NoSuchFileException e) {
                throw new IOException("no " + HistogramsCsv.FILE_NAME + " in " + dir);
            }
            List<RunsCsv.ClientRun> these = RunsCsv.readIfPresent(dir);
            withoutRuns += these.isEmpty() ? 1 : 0;
            runs.addAll(these);
        }
        String title = this.title != null ? this.title : defaultTitle(runs);
        List<String> notes = new ArrayList<>(failureNotes(runs));
        if (withoutRuns > 0) {
            notes.add(withoutRuns + " of " + inputs.size() + " inputs have no " + RunsCsv.FILE_NAME
                    + ": whether they were overloaded is unknown");
        }
        Figure figure = new Figure(results, runs, List.of());
        write(figure, outDir, title, notes, out);
        printSummaries(runs, out);
        return Cli.OK;
    }

    /** The workload and load on one line, then the run's time (yyyy-MM-dd HH:mm UTC) and commit. */
    static String defaultTitle(List<RunsCsv.ClientRun> runs) {
        if (runs.isEmpty()) {
            return "Round-trip time by message length";
        }
        Set<String> workloads = new TreeSet<>();
        Set<String> commits = new TreeSet<>();
        Set<String> protocols = new TreeSet<>();
        double offered = 0;
        for (RunsCsv.ClientRun run : runs) {
            workloads.add(run.workload());
            commits.add(run.commit());
            protocols.add(run.stats().protocol());
        }
        for (String protocol : protocols) {
            offered = Math.max(offered, runs.stream().filter(r -> r.stats().protocol().equals(protocol))
                    .mapToDouble(r -> r.stats().offeredMbps()).sum());
        }
        long clients = runs.size() / Math.max(1, protocols.size());
        Instant last = runs.stream().map(RunsCsv.ClientRun::finished).max(Comparator.naturalOrder()).orElseThrow();
        return String.format(Locale.ROOT, "%s, %s offering %.1f Mbit/s of requests%s: %s%n%s, commit %s",
                String.join(" + ", workloads), clients == 1 ? "1 client" : clients + " clients", offered,
                clients == 1 ? "" : " in all", String.join(" vs ", protocols), Provenance.minute(last),
                String.join(", ", commits));
    }

    /** "homa: 19 of 25401 calls failed (not in the curves)" for each protocol that lost calls. */
    static List<String> failureNotes(List<RunsCsv.ClientRun> runs) {
        List<String> notes = new ArrayList<>();
        Set<String> protocols = new TreeSet<>();
        runs.forEach(r -> protocols.add(r.stats().protocol()));
        for (String protocol : protocols) {
            long failed = runs.stream().filter(r -> r.stats().protocol().equals(protocol))
                    .mapToLong(r -> r.stats().failed()).sum();
            long sent = runs.stream().filter(r -> r.stats().protocol().equals(protocol))
                    .mapToLong(r -> r.stats().sent()).sum();
            if (failed > 0) {
                notes.add(String.format(Locale.ROOT, "%s: %d of %d calls failed (not in the curves)", protocol,
                        failed, sent));
            }
        }
        return notes;
    }

    /** The runs' summary lines (each ends in OVERLOADED when it was). */
    static void printSummaries(List<RunsCsv.ClientRun> runs, PrintStream out) {
        runs.forEach(r -> out.println(r.stats().summaryLine()));
    }

    /**
     * Writes results.csv, histograms.csv, runs.csv and rtt.svg into {@code outDir} and prints the table; with
     * {@code notes} under the plot's axis (what the curves leave out). Returns the table as printed.
     */
    static String write(Figure figure, Path outDir, String title, List<String> notes, PrintStream out)
            throws IOException {
        return write(figure, null, outDir, title, notes, out);
    }

    /**
     * As {@link #write(Figure, Path, String, List, PrintStream)}; with {@code slowdowns} (slowdown x 1000 per
     * protocol and bucket; null: none) the figure is the papers' one, slowdown over RTT.
     */
    static String write(Figure figure, ResultSet slowdowns, Path outDir, String title, List<String> notes,
                        PrintStream out) throws IOException {
        ResultsCsv.write(outDir, figure.merged().rows());
        HistogramsCsv.write(outDir, figure.merged().rows());
        if (!figure.runs().isEmpty()) {
            RunsCsv.write(outDir, figure.runs());
        }
        OverloadVerdict verdict = figure.verdict();
        Files.writeString(outDir.resolve(SVG_FILE), slowdowns == null || slowdowns.isEmpty()
                ? RttPlot.render(figure.merged(), title, notes, verdict)
                : RttPlot.renderSlowdownAndRtt(figure.merged(), slowdowns, title, notes, verdict),
                StandardCharsets.UTF_8);
        String table = ComparisonTable.format(figure.merged(), verdict, figure.repeats());
        out.print(table);
        out.println("wrote " + outDir.resolve(ResultsCsv.FILE_NAME) + " and " + outDir.resolve(SVG_FILE));
        return table;
    }
}
