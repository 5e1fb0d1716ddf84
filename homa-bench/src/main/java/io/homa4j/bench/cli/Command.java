package io.homa4j.bench.cli;

import java.io.PrintStream;
import java.util.List;

/** One subcommand of the bench jar. */
interface Command {
    /** Runs with the arguments after the subcommand's name; returns the process exit code. */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
