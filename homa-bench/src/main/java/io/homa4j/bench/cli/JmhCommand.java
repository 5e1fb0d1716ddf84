package io.homa4j.bench.cli;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code jmh [--out DIR] [args]}: runs JMH with the remaining arguments as JMH's own command line, then writes
 * DIR/{@value #SUMMARY_FILE}: where the figures come from ({@link ResultsFile}) and one line per benchmark and
 * parameter set with its score, error and unit, secondary results indented below it. JMH's help and listings
 * ({@code -h}, {@code -l}, {@code -lp}, {@code -lprof}, {@code -lrf}) run as JMH prints them, with no file.
 */
@Command(name = JmhCommand.NAME, description = {"Runs the JMH benchmarks (RttBenchmark, QuietRttBenchmark,"
        + " MixedLoadBenchmark, ...); `jmh -h` lists JMH's options.", "Writes DIR/" + JmhCommand.SUMMARY_FILE
        + " with every score."})
final class JmhCommand implements BenchCommand {
    static final String NAME = "jmh";
    static final String SUMMARY_FILE = "summary.txt";

    /** Before JMH's arguments only: picocli stops at the first argument it does not know. */
    @Option(names = "--out", paramLabel = "DIR", description = "where " + SUMMARY_FILE + " goes (default results/jmh)")
    Path out = Path.of("results", "jmh");

    /** Every argument for JMH, its options included, unparsed ({@link Cli} tells picocli to take them as they are). */
    @Parameters(paramLabel = "ARGS", description = "JMH's command line, handed on unparsed")
    List<String> arguments = new ArrayList<>();

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        String[] argv = arguments.toArray(new String[0]);
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(argv);
        } catch (CommandLineOptionException e) {
            throw new UsageException("jmh: " + e.getMessage());
        }
        if (options.shouldHelp() || options.shouldList() || options.shouldListWithParams()
                || options.shouldListProfilers() || options.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(argv);
            return Cli.OK;
        }
        ResultsFile record = ResultsFile.start(NAME, arguments);
        Collection<RunResult> results = new Runner(options).run();
        if (results.isEmpty()) {
            err.println("jmh: no benchmark ran: does the pattern match one? (`jmh -l` lists them)");
            return Cli.FAILED;
        }
        List<String> lines = summary(results);
        out.println();
        lines.forEach(out::println);
        out.println("jmh: wrote " + record.write(this.out.resolve(SUMMARY_FILE), lines));
        return Cli.OK;
    }

    /** "EngineDataPathBenchmark.deliver size=100  thrpt  5 samples  3,315,402.120 ± 81,227.004 ops/s", and below. */
    static List<String> summary(Collection<RunResult> results) {
        List<String> lines = new ArrayList<>();
        for (RunResult run : results) {
            StringBuilder name = new StringBuilder(run.getParams().getBenchmark()
                    .replaceFirst("^io\\.homa4j\\.bench\\.jmh\\.", ""));
            for (String key : run.getParams().getParamsKeys()) {
                name.append(' ').append(key).append('=').append(run.getParams().getParam(key));
            }
            lines.add(name + "  " + run.getParams().getMode().shortLabel() + "  " + score(run.getPrimaryResult()));
            for (Map.Entry<String, Result> secondary : run.getSecondaryResults().entrySet()) {
                lines.add("    " + secondary.getKey() + "  " + score(secondary.getValue()));
            }
        }
        return lines;
    }

    private static String score(Result<?> result) {
        double error = result.getScoreError();
        return String.format(Locale.ROOT, "%d samples  %,.3f%s %s", result.getSampleCount(), result.getScore(),
                Double.isNaN(error) ? "" : String.format(Locale.ROOT, " \u00b1 %,.3f", error), result.getScoreUnit());
    }
}
