package io.homa4j.bench.cli;

import io.homa4j.bench.driver.LatencyRecorder;
import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.OpenLoopDriver;
import io.homa4j.bench.driver.RttByLength;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.driver.SlowdownRecorder;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.transport.BenchClient;
import io.homa4j.bench.transport.BenchServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code client}: one open-loop run against running echo servers; writes results.csv and histograms.csv (and, given
 * the unloaded RTT by length, every call's slowdown in slowdown-histograms.csv).
 */
@Command(name = "client", sortOptions = false,
        description = "Open-loop Poisson client; writes DIR/results.csv and DIR/histograms.csv.")
final class ClientCommand implements BenchCommand {
    @Mixin
    HelpOption help;

    @Mixin
    ClientOptions options;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        RunStats stats = execute(options.plan(), out, err);
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

    /** Connects, runs, writes DIR/results.csv and DIR/histograms.csv, prints the summary line on {@code out}. */
    static RunStats execute(ClientPlan plan, PrintStream out, PrintStream err) throws Exception {
        return execute(plan, null, out, err);
    }

    /** As {@link #execute(ClientPlan, PrintStream, PrintStream)}, as the client of {@code local} (null: on its own). */
    static RunStats execute(ClientPlan plan, BenchServer local, PrintStream out, PrintStream err) throws Exception {
        LatencyRecorder recorder = new LatencyRecorder(LengthBuckets.forWorkload(plan.driver().workload()));
        SlowdownRecorder slowdowns = plan.unloadedRtt() == null ? null
                : new SlowdownRecorder(recorder.buckets(), RttByLength.read(plan.unloadedRtt()));
        RunStats stats;
        OpenLoopDriver driver;
        try (BenchClient client = plan.protocol().connect(plan.servers(), plan.transport(), local)) {
            err.println(client.describe());
            err.println(String.format(Locale.ROOT, "%s: workload %s (mean %.0f B), offered %.1f Mbit/s"
                            + " (%.0f requests/s), %d length buckets %s", plan.protocol().id(),
                    plan.driver().workload(), plan.driver().workload().meanBytes(), plan.driver().loadMbps(),
                    1e9 / plan.driver().meanGapNanos(), recorder.buckets().count(), recorder.buckets()));
            driver = new OpenLoopDriver(plan.driver(), client, recorder, slowdowns, progress(plan, err));
            stats = driver.run(plan.protocol().id());
            if (!client.statistics().isEmpty()) {
                err.println(client.statistics());
            }
        }
        if (plan.progress().resolved() == ClientPlan.Progress.CR) {
            err.println();
        }
        ResultSet results = new ResultSet().addRecorder(plan.protocol().id(), recorder);
        ResultsCsv.write(plan.out(), results.rows());
        HistogramsCsv.write(plan.out(), results.rows());
        if (slowdowns != null) {
            HistogramsCsv.write(plan.out(), SlowdownRecorder.FILE_NAME,
                    new ResultSet().addRecorder(plan.protocol().id(), slowdowns.milli()).rows());
        }
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

    private static OpenLoopDriver.Progress progress(ClientPlan plan, PrintStream err) {
        ClientPlan.Progress mode = plan.progress().resolved();
        if (mode == ClientPlan.Progress.NONE) {
            return null;
        }
        String id = plan.protocol().id();
        long[] lastLine = {0};
        return (elapsed, total, sent, completed, outstanding) -> {
            String line = String.format(Locale.ROOT, "[%s] %5.1f / %.1f s  sent %d  completed %d  outstanding %d",
                    id, elapsed / 1e9, total / 1e9, sent, completed, outstanding);
            if (mode == ClientPlan.Progress.CR) {
                err.print("\r" + line + "   ");
                err.flush();
            } else if (elapsed - lastLine[0] >= 5_000_000_000L || elapsed == total) {
                lastLine[0] = elapsed;
                err.println(line);
            }
        };
    }
}
