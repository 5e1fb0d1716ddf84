package io.homa4j.bench.cli;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.RttPlot;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.report.SlowdownCsv;
import io.homa4j.bench.report.SlowdownTable;
import io.homa4j.bench.simulate.IdealRack;
import io.homa4j.bench.transport.Protocol;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code compare} shows once its repeats ran: the merged table with the headline ratios, the plot, the CSV
 * files ({@link MergeCommand#write}), each run's summary line, the rack's CPU and loss lines, and all of that again
 * in {@link #RESULTS_FILE} with where it came from ({@link ResultsFile}). Also reads the rack script's per-repeat
 * CSV files into those lines.
 */
final class CompareReport {
    /** The results file in the output directory. */
    static final String RESULTS_FILE = "summary.txt";
    /** Above this share of the machine busy, the rack's hosts compete for CPU more than for the link. */
    static final int RACK_CPU_LIMIT_PCT = 70;

    private final ComparePlan plan;
    private final ResultsFile record;
    private final ResultSet merged = new ResultSet();
    private final List<ResultSet> repeats = new ArrayList<>();
    private final List<RunsCsv.ClientRun> runs = new ArrayList<>();
    private final List<String> labels = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    /** Slowdown x 1000 of every repeat's calls, per protocol and bucket (the rack's clients record it). */
    private final ResultSet slowdowns = new ResultSet();
    /** Each protocol's unloaded RTT by length on the idle rack: what its slowdowns divide by. */
    private final Map<String, RttByLength> unloaded = new LinkedHashMap<>();
    /** Homa with ideal hosts on the same rack; null when not simulated. */
    private IdealRack.Result ideal;

    /** Starts the report of {@code plan}: the results file's clock and load average start now. */
    CompareReport(ComparePlan plan) {
        this.plan = plan;
        this.record = ResultsFile.start("compare", plan.argv());
    }

    /** Adds one protocol's client runs of one repeat (several in the rack: one per host). */
    void addRuns(int repeat, Protocol protocol, List<RunStats> clients) {
        if (!clients.isEmpty()) {
            runs.add(new RunsCsv.ClientRun(plan.workload().toString(), Instant.now(), Provenance.commit(),
                    RunStats.combine(protocol.id(), clients)));
            labels.add("repeat " + repeat + (clients.size() > 1 ? " (" + clients.size() + " clients)" : ""));
        }
    }

    /** Adds one repeat's results, every protocol's, to the merged figure. */
    void addRepeat(ResultSet results) {
        repeats.add(results);
        results.rows().forEach(row -> merged.add(row.protocol(), row.bucketMaxBytes(), row.histogram()));
    }

    /** Adds one repeat's slowdown histograms (slowdown x 1000), every protocol's. */
    void addSlowdowns(ResultSet repeat) {
        repeat.rows().forEach(row -> slowdowns.add(row.protocol(), row.bucketMaxBytes(), row.histogram()));
    }

    /** The unloaded RTT by length {@code protocol}'s slowdowns were measured against. */
    void setUnloaded(String protocol, RttByLength table) {
        unloaded.put(protocol, table);
    }

    /** Homa's limit on the same rack, shown as {@link SlowdownTable#IDEAL}. */
    void setIdeal(IdealRack.Result result) {
        ideal = result;
    }

    /** A line shown under the summary lines and kept in the results file (the rack's CPU and losses). */
    void addNote(String line) {
        notes.add(line);
    }

    /** Writes the CSV files, the plot and the results file; prints the table and the summary lines. */
    int finish(String place, PrintStream out) throws IOException {
        out.println();
        List<String> shown = new ArrayList<>();
        ResultSet figureSlowdowns = slowdownsWithIdeal();
        String table = MergeCommand.write(new MergeCommand.Figure(merged, runs, repeats), figureSlowdowns,
                plan.outDir(), title(place), MergeCommand.failureNotes(runs), out);
        if (!figureSlowdowns.isEmpty()) {
            List<SlowdownCsv.Row> rows = slowdownRows();
            Path csv = SlowdownCsv.write(plan.outDir(), rows);
            String slowdownTable = SlowdownTable.format(figureSlowdowns, rows)
                    + SlowdownTable.againstTheLimitInRtt(rttsWithIdeal(), rows);
            if (new MergeCommand.Figure(merged, runs, repeats).verdict().overloaded()) {
                slowdownTable += "OVERLOADED: the slowdowns above include time the requests spent in the clients,"
                        + " so they do not measure the transports alone\n";
            }
            out.println();
            out.print(slowdownTable);
            out.println("wrote " + csv);
            table = table + "\n" + slowdownTable;
        }
        shown.addAll(table.lines().toList());
        for (int i = 0; i < runs.size(); i++) {
            shown.add(labels.get(i) + " " + runs.get(i).stats().summaryLine());
        }
        shown.addAll(notes);
        shown.subList(table.lines().toList().size(), shown.size()).forEach(out::println);
        Path file = record.write(plan.outDir().resolve(RESULTS_FILE), shown);
        out.println("load average before / after: " + record.loadBefore() + " / " + Provenance.loadAverage()
                + "; commit " + Provenance.commit() + "; wrote " + file);
        return Cli.OK;
    }

    /** The measured protocols' slowdowns and, when simulated, the limit's, per bucket. */
    private ResultSet slowdownsWithIdeal() {
        ResultSet all = new ResultSet();
        slowdowns.rows().forEach(row -> all.add(row.protocol(), row.bucketMaxBytes(), row.histogram()));
        if (ideal != null && !slowdowns.isEmpty()) {
            all.addRecorder(SlowdownTable.IDEAL, ideal.simulation().slowdownMilli());
        }
        return all;
    }

    /** The measured protocols' RTTs, all repeats merged, and, when simulated, the limit's, per bucket. */
    private ResultSet rttsWithIdeal() {
        ResultSet all = new ResultSet();
        merged.rows().forEach(row -> all.add(row.protocol(), row.bucketMaxBytes(), row.histogram()));
        if (ideal != null) {
            all.addRecorder(SlowdownTable.IDEAL, ideal.simulation().rtt());
        }
        return all;
    }

    /** {@code slowdown.csv}'s rows: each measured protocol against its own unloaded RTT, then the limit. */
    private List<SlowdownCsv.Row> slowdownRows() {
        List<SlowdownCsv.Row> rows = new ArrayList<>();
        for (String protocol : slowdowns.protocols()) {
            RttByLength table = unloaded.get(protocol);
            if (table != null) {
                rows.addAll(SlowdownCsv.rows(protocol, slowdowns, plan.workload(), table));
            }
        }
        if (ideal != null) {
            rows.addAll(ideal.slowdownRows(SlowdownTable.IDEAL));
        }
        return rows;
    }

    /** What the title says is compared: "Homa vs TCP" for the default pair, else the protocols' names. */
    static String versus(List<Protocol> protocols) {
        if (protocols.size() == 2 && protocols.containsAll(List.of(Protocol.HOMA, Protocol.TCP))) {
            return "Homa vs TCP";
        }
        return String.join(" vs ", protocols.stream().map(Protocol::id).toList());
    }

    /** The figure's title: workload, load, place, repeats; second line date, commit and load average. */
    private String title(String place) {
        String max = plan.maxMessage() < Integer.MAX_VALUE ? " (max " + RttPlot.lengthLabel(plan.maxMessage()) + ")"
                : "";
        int[] bounds = LengthBuckets.forWorkload(plan.workload()).upperBounds();
        String largest = bounds.length < 2 ? "" : String.format(Locale.ROOT, " \u00b7 largest bucket %s-%s (%.0f%% of"
                        + " messages)", RttPlot.lengthLabel(bounds[bounds.length - 2] + 1),
                RttPlot.lengthLabel(bounds[bounds.length - 1]),
                100 * (1 - plan.workload().cumulativeFraction(bounds[bounds.length - 2])));
        return String.format(Locale.ROOT, "%s%s at %.0f%% load, %s: %s\n%d repeat%s of %s s per protocol"
                        + " (merged)%s \u00b7 %s \u00b7 commit %s \u00b7 load average %s",
                plan.workload().name().toUpperCase(Locale.ROOT), max, plan.load() * 100, place,
                versus(plan.protocols()), plan.repeats(),
                plan.repeats() == 1 ? "" : "s", Converters.number(plan.durationSeconds()), largest,
                Provenance.minute(Instant.now()), Provenance.commit(), record.loadBefore());
    }

    /**
     * "repeat 1: homa: machine 41% busy (rack JVMs 20%, softirq 9%, outside the rack 3%)" per protocol, from the
     * rack script's {@code cpu.csv}; none when the file is missing.
     */
    static List<String> rackCpu(int repeat, Path cpuCsv) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(cpuCsv)) {
            return lines;
        }
        List<String> rows = Files.readAllLines(cpuCsv);
        for (String line : rows.subList(Math.min(1, rows.size()), rows.size())) {
            String[] c = line.split(",");
            if (c.length >= 9) {
                lines.add(String.format(Locale.ROOT, "repeat %d: %s: machine %s%% busy (rack JVMs %s%%, softirq %s%%,"
                        + " outside the rack %s%%)%s", repeat, c[0], c[1], c[7], c[4], c[8],
                        Integer.parseInt(c[1]) > RACK_CPU_LIMIT_PCT ? " ABOVE " + RACK_CPU_LIMIT_PCT
                                + "%: the CPU, not the link, may be what the rack measures" : ""));
            }
        }
        return lines;
    }

    /**
     * "repeat 1: homa: switch dropped 0 packets, hosts' egress queues 0, UDP receive buffers 0; Homa sent 129 of
     * 228,753 DATA packets again (0.056%)" per protocol, from the rack script's {@code losses.csv}; none when the
     * file is missing. A retransmission with nothing dropped anywhere answered a packet that was only late.
     */
    static List<String> rackLosses(int repeat, Path lossesCsv) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(lossesCsv)) {
            return lines;
        }
        List<String> rows = Files.readAllLines(lossesCsv);
        for (String row : rows.subList(Math.min(1, rows.size()), rows.size())) {
            String[] c = row.split(",", -1);
            if (c.length < 6) {
                continue;
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "repeat %d: %s: switch dropped %,d packets, hosts' egress queues %,d, UDP receive buffers %,d",
                    repeat, c[0], Long.parseLong(c[1]), Long.parseLong(c[2]), Long.parseLong(c[3])));
            if (!c[4].isEmpty() && !c[5].isEmpty()) {
                long data = Long.parseLong(c[4]);
                long resent = Long.parseLong(c[5]);
                line.append(String.format(Locale.ROOT, "; Homa sent %,d of %,d DATA packets again (%.3f%%)", resent,
                        data, data > 0 ? 100.0 * resent / data : 0));
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
