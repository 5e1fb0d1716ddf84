package io.homa4j.bench.cli;

import io.homa4j.bench.faults.FaultOutcome;
import io.homa4j.bench.faults.FaultPlan;
import io.homa4j.bench.faults.FaultRun;
import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.faults.FaultCounts;
import io.homa4j.faults.Faults;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code faults}: for each loss level, a run of echo calls over loopback UDP through a {@link
 * io.homa4j.faults.FaultInjector}; prints one line per level: calls ended byte-exact, with wrong bytes, failed
 * by error code, unfinished (a hang), and the duration; the engines' counters with {@code --verbose true} or after a
 * hang. Fails (exit 1) when any call hung or failed untyped.
 */
@Command(name = "faults", sortOptions = false, description = "Echo calls over loopback UDP with injected faults;"
        + " counts how each call ended per loss level.")
final class FaultsCommand implements BenchCommand {
    @Mixin
    HelpOption help;

    @Bounds(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--loss", split = ",", paramLabel = "P",
            description = "loss levels, one run each, each in [0, 1) (default 0.01,0.1,0.3)")
    List<Double> losses = List.of(0.01, 0.1, 0.3);

    @Bounds(min = 1, max = 10_000_000)
    @Option(names = "--calls", paramLabel = "N", description = "calls per level (default 10000)")
    int calls = 10_000;

    @Mixin
    WorkloadOption workload;

    @Bounds(min = 1, max = 64 << 20)
    @Option(names = "--max-message", paramLabel = "B",
            description = "longest message; the workload is cut there (default 4000000)")
    int maxMessage = 4_000_000;

    @Bounds(min = 1, max = 10_000)
    @Option(names = "--max-outstanding", paramLabel = "N", description = "calls in flight (default 16)")
    int maxOutstanding = 16;

    @Bounds(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--duplicate", paramLabel = "P", description = "probability a datagram is duplicated (default 0)")
    double duplicate;

    @Bounds(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--delay", paramLabel = "P", description = "probability a datagram is delayed (default 0)")
    double delay;

    @Bounds(min = 1, max = 10_000_000)
    @Option(names = "--max-delay-us", paramLabel = "N", description = "longest delay, microseconds (default 500)")
    long maxDelayUs = 500;

    @Bounds(min = 0, max = 1, maxExclusive = true)
    @Option(names = "--corrupt", paramLabel = "P", description = "probability a datagram is corrupted (default 0)")
    double corrupt;

    @Mixin
    SeedOption seed;

    @Bounds(min = 1, max = 3_600)
    @Option(names = "--hang-seconds", paramLabel = "S", description = "a level in which no call ends for this long"
            + " stops; its open calls count as hung (default 30)")
    int hangSeconds = 30;

    @Mixin
    RttOption rtt;

    @Option(names = "--verbose", arity = "1", paramLabel = "true|false",
            description = "print the engines' counters for every level (default false)")
    boolean verbose;

    @Mixin
    HandlerOption handler;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        Workload workload = this.workload.truncatedAt(maxMessage);
        long maxDelayNanos = maxDelayUs * 1_000;
        HomaConfig config = HomaConfig.builder().rttMicros(rtt.rttUs).maxMessageBytes(maxMessage).build();
        FaultPlan.Handler handler = this.handler.handler;
        long seed = this.seed.seed();
        Faults others = new Faults(0, corrupt, duplicate, delay, delay > 0 ? maxDelayNanos : 0);

        out.println(String.format(Locale.ROOT, "faults: %d calls per level, %s truncated at %d B, %d outstanding,"
                + " seed %d, %s", calls, workload.name(), maxMessage, maxOutstanding, seed, config));
        out.println(header());
        boolean clean = true;
        for (double loss : losses) {
            FaultPlan plan = new FaultPlan(others.withDrop(loss), calls, workload, maxOutstanding, seed, config,
                    Duration.ofSeconds(hangSeconds), handler);
            FaultOutcome outcome = FaultRun.run(plan);
            out.println(row(outcome) + "  load " + Provenance.loadAverage());
            out.println("    calls ended vs started: " + (outcome.calls() - outcome.unfinished()) + " of "
                    + outcome.calls() + " (handler " + handler + ")");
            out.println("    filter towards server: " + counts(outcome.towardsServer()) + "; towards client: "
                    + counts(outcome.towardsClient()) + "; handler runs " + outcome.handlerRuns()
                    + "; engine drops " + outcome.engineDrops());
            if (outcome.deadlineLatenessText() != null) {
                out.println("    deadline lateness (DEADLINE_EXCEEDED after the deadline): "
                        + outcome.deadlineLatenessText());
            }
            outcome.failureSamples().forEach(f -> out.println("    failed: " + f));
            if (verbose || !outcome.everyCallEnded()) {
                outcome.engineMetrics().lines().forEach(line -> out.println("    " + line));
            }
            clean &= outcome.everyCallEnded();
        }
        if (!clean) {
            err.println("faults: some calls hung or failed with an untyped error");
        }
        return clean ? Cli.OK : Cli.FAILED;
    }

    static String header() {
        return String.format(Locale.ROOT, "%-28s %7s %7s %6s %7s %10s %9s  %s", "faults", "calls", "exact", "wrong",
                "untyped", "unfinished", "seconds", "failed by code");
    }

    static String row(FaultOutcome o) {
        return String.format(Locale.ROOT, "%-28s %7d %7d %6d %7d %10d %9.1f  %s", o.faultsText(), o.calls(),
                o.exact(), o.wrongBytes(), o.untyped(), o.unfinished(), o.durationNanos() / 1e9, o.failuresText());
    }

    private static String counts(FaultCounts c) {
        return String.format(Locale.ROOT, "%d seen, %d dropped, %d corrupted, %d duplicated, %d delayed", c.seen(),
                c.dropped(), c.corrupted(), c.duplicated(), c.delayed());
    }
}
