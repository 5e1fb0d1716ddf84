package io.homa4j.bench.cli;

import java.io.PrintStream;
import java.util.List;

/** One subcommand of the bench jar: its name, help and options (parsed by picocli, see {@link Cli}), and its run. */
public interface Command {
    /** The name on the command line. */
    String name();

    /** Help text; the first line is the summary in the command list. */
    String[] description();

    /** The options picocli accepts for this command. */
    List<CliOption> options();

    /**
     * Whether every argument after the command's name goes to it unparsed ({@link Args#passedThrough}), for a
     * command that hands them to another parser (JMH's).
     */
    default boolean passesArgumentsThrough() {
        return false;
    }

    /** Runs with the parsed options; returns the process exit code. Bad values throw {@link UsageException}. */
    int run(Args args, PrintStream out, PrintStream err) throws Exception;
}
