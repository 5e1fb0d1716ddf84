package io.homa4j.bench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** {@code jmh [args]}: hands the remaining arguments to JMH's own command line (it exits the JVM itself). */
@Command(name = JmhCommand.NAME, description = "Runs the JMH benchmarks (RttBenchmark, QuietRttBenchmark,"
        + " MixedLoadBenchmark, ...); `jmh -h` lists JMH's options.")
final class JmhCommand implements BenchCommand {
    static final String NAME = "jmh";

    /** Every argument, JMH's options included, unparsed ({@link Cli} tells picocli to take them as they are). */
    @Parameters(paramLabel = "ARGS", description = "handed on unparsed")
    List<String> arguments = new ArrayList<>();

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        org.openjdk.jmh.Main.main(arguments.toArray(new String[0]));
        return Cli.OK;
    }
}
