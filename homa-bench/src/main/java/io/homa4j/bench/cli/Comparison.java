package io.homa4j.bench.cli;

import java.io.PrintStream;

/** One place {@code compare} runs its repeats in: it measures, then hands its figure to {@link CompareReport}. */
interface Comparison {
    /** Runs every repeat of the plan and writes the report; returns the exit code. */
    int run(PrintStream out, PrintStream err) throws Exception;
}
