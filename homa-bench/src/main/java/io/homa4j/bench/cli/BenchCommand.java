package io.homa4j.bench.cli;

import java.io.PrintStream;

/**
 * A subcommand of the bench jar: a picocli {@code @Command} class whose {@code @Option} fields picocli fills, then
 * {@link Cli} calls {@link #run}. Bad values that picocli cannot see alone (one option against another) throw
 * {@link UsageException}.
 */
public interface BenchCommand {
    /** Runs with the parsed options; returns the process exit code. */
    int run(PrintStream out, PrintStream err) throws Exception;
}
