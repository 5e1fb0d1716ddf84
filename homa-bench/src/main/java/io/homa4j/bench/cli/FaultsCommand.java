package io.homa4j.bench.cli;

import io.homa4j.bench.faults.FaultOutcome;
import io.homa4j.bench.faults.FaultPlan;
import io.homa4j.bench.faults.FaultRun;
import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.faults.FaultCounts;
import io.homa4j.faults.Faults;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code faults}: for each loss level, a run of echo calls over loopback UDP through a {@link
 * io.homa4j.faults.FaultInjector}; prints one line per level: calls ended byte-exact, with wrong bytes, failed
 * by error code, unfinished (a hang), and the duration; the engines' counters with {@code --verbose true} or after a
 * hang. Fails (exit 1) when any call hung or failed untyped.
 */
final class FaultsCommand implements Command {
    @Override
    public String name() {
        return "faults";
    }

    @Override
    public String[] description() {
        return new String[] {"Echo calls over loopback UDP with injected faults; counts how each call ended per loss"
                + " level."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.value("loss", "P,...", "loss levels, one run each, each in [0, 1) (default 0.01,0.1,0.3)"),
                CliOption.value("calls", "N", "calls per level (default 10000)"),
                CliOption.workload(),
                CliOption.maxMessage(4_000_000),
                CliOption.value("max-outstanding", "N", "calls in flight (default 16)"),
                CliOption.value("duplicate", "P", "probability a datagram is duplicated (default 0)"),
                CliOption.value("delay", "P", "probability a datagram is delayed (default 0)"),
                CliOption.value("max-delay-us", "N", "longest delay, microseconds (default 500)"),
                CliOption.value("corrupt", "P", "probability a datagram is corrupted (default 0)"),
                CliOption.seed(),
                CliOption.value("hang-seconds", "S", "a level in which no call ends for this long stops; its open"
                        + " calls count as hung (default 30)"),
                CliOption.rttMicros(100),
                CliOption.value("verbose", "true|false", "print the engines' counters for every level (default"
                        + " false)"),
                CliOption.handler());
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        List<Double> losses = new ArrayList<>();
        for (String s : args.list("loss", "0.01,0.1,0.3")) {
            losses.add(probability("loss", s));
        }
        int calls = args.intValue("calls", 10_000, 1, 10_000_000);
        int maxMessage = args.intValue("max-message", 4_000_000, 1, 64 << 20);
        Workload workload = ClientCommand.workload(args, maxMessage);
        int maxOutstanding = args.intValue("max-outstanding", 16, 1, 10_000);
        double duplicate = probability("duplicate", args.string("duplicate", "0"));
        double delay = probability("delay", args.string("delay", "0"));
        long maxDelayNanos = args.longValue("max-delay-us", 500L, 1, 10_000_000) * 1_000;
        double corrupt = probability("corrupt", args.string("corrupt", "0"));
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        int hangSeconds = args.intValue("hang-seconds", 30, 1, 3_600);
        HomaConfig config = HomaConfig.builder().rttMicros(args.intValue("rtt-us", 100, 1, 1_000_000))
                .maxMessageBytes(maxMessage).build();
        boolean verbose = Boolean.parseBoolean(args.string("verbose", "false"));
        FaultPlan.Handler handler = FaultPlan.Handler.fromOption(args.string("handler", "echo"));
        if (handler == null) {
            throw new UsageException("faults: --handler is echo, never-reply or released-reply");
        }
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


    private static double probability(String name, String value) throws UsageException {
        try {
            double p = Double.parseDouble(value.trim());
            if (!(p >= 0 && p < 1)) {
                throw new UsageException("faults: --" + name + " must be in [0, 1): " + value);
            }
            return p;
        } catch (NumberFormatException e) {
            throw new UsageException("faults: --" + name + " must be a number: " + value);
        }
    }
}
