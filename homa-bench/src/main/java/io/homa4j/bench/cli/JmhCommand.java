package io.homa4j.bench.cli;

import java.io.PrintStream;
import java.util.List;

/** {@code jmh [args]}: hands the remaining arguments to JMH's own command line (it exits the JVM itself). */
final class JmhCommand implements Command {
    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        org.openjdk.jmh.Main.main(args.toArray(new String[0]));
        return Cli.OK;
    }
}
