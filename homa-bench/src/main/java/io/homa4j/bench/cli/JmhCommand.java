package io.homa4j.bench.cli;

import java.io.PrintStream;
import java.util.List;

/** {@code jmh [args]}: hands the remaining arguments to JMH's own command line (it exits the JVM itself). */
final class JmhCommand implements Command {
    @Override
    public String name() {
        return "jmh";
    }

    @Override
    public String[] description() {
        return new String[] {"Runs the JMH benchmarks (RttBenchmark, QuietRttBenchmark, MixedLoadBenchmark, ...);"
                + " `jmh -h` lists JMH's options."};
    }

    @Override
    public List<CliOption> options() {
        return List.of();
    }

    @Override
    public boolean passesArgumentsThrough() {
        return true;
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        org.openjdk.jmh.Main.main(args.passedThrough().toArray(new String[0]));
        return Cli.OK;
    }
}
