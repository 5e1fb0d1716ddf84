package io.homa4j.bench.cli;

import picocli.CommandLine.Option;

/** {@code --rtt-us}: the unloaded round trip Homa sizes its windows and timers for. */
final class RttOption {
    /**
     * About the P50 of a 100 B Homa call over loopback between two JVMs (docs/user-guide.md); much less starves the
     * engine's incoming window (8 x link x RTT) at loopback's rates.
     */
    static final int DEFAULT_RTT_US = 100;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--rtt-us", paramLabel = "N",
            description = "Homa's unloaded round trip, microseconds (default " + DEFAULT_RTT_US + ")")
    int rttUs = DEFAULT_RTT_US;
}
