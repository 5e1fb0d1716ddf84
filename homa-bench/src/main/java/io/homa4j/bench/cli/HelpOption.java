package io.homa4j.bench.cli;

import picocli.CommandLine.Option;

/** {@code -h, --help} of a command (not of {@code jmh}, whose {@code -h} is JMH's). */
public final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean requested;
}
