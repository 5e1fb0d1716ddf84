package io.homa4j.bench.cli;

import picocli.CommandLine.Option;

/** {@code --seed}: the random seed of a run (arrivals, lengths, losses). */
public final class SeedOption {
    @Option(names = "--seed", paramLabel = "S", description = "random seed (default 1)")
    long seed = 1;

    public long seed() {
        return seed;
    }
}
