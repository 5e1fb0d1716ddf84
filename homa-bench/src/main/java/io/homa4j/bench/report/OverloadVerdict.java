package io.homa4j.bench.report;

import io.homa4j.bench.driver.RunStats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the client runs behind a figure were overloaded ({@link RunStats#overloadReasons()}): then the figure
 * measures the clients' queue, not the transport, and every place that shows it says OVERLOADED.
 *
 * @param notes one line per overloaded protocol, e.g. "homa OVERLOADED in 2 of 4 runs: send lag P99 8.3 s
 *              &gt; 5 ms; 99.0% of calls waited for the outstanding cap (&gt; 1%)"
 * @param known false when no run statistics were available (histograms of an older bench): nothing can be said
 */
public record OverloadVerdict(List<String> notes, boolean known) {
    public OverloadVerdict {
        notes = List.copyOf(notes);
    }

    public static OverloadVerdict of(List<RunsCsv.ClientRun> runs) {
        Map<String, List<RunStats>> byProtocol = new LinkedHashMap<>();
        for (RunsCsv.ClientRun run : runs) {
            byProtocol.computeIfAbsent(run.stats().protocol(), p -> new ArrayList<>()).add(run.stats());
        }
        List<String> notes = new ArrayList<>();
        byProtocol.forEach((protocol, stats) -> {
            List<RunStats> overloaded = stats.stream().filter(RunStats::overloaded).toList();
            if (!overloaded.isEmpty()) {
                // the worst run's reasons: the one whose requests left latest
                RunStats worst = overloaded.stream()
                        .max(Comparator.comparingDouble(s -> Double.isNaN(s.clientLagP99Micros()) ? 0
                                : s.clientLagP99Micros())).orElseThrow();
                notes.add(protocol + " OVERLOADED" + (stats.size() > 1
                        ? " in " + overloaded.size() + " of " + stats.size() + " runs" : "") + ": "
                        + String.join("; ", worst.overloadReasons()));
            }
        });
        return new OverloadVerdict(notes, !runs.isEmpty());
    }

    public boolean overloaded() {
        return !notes.isEmpty();
    }
}
