package io.homa4j.bench.cli;

import io.homa4j.bench.workload.Workload;
import io.homa4j.bench.workload.Workloads;
import picocli.CommandLine.Option;

import java.util.Locale;

/** {@code --workload}, as every command that generates messages takes it. */
public final class WorkloadOption {
    @Option(names = "--workload", paramLabel = "w1..w5|SIZE", converter = Converters.WorkloadConverter.class,
            description = "message lengths: the paper's workloads, or one size (default w4)")
    Workload workload = Workloads.W4;

    /** {@code workload} as this option takes it: {@code w4}, or the length of a one-size workload. */
    public static String spec(Workload workload) {
        return workload.name().toLowerCase(Locale.ROOT);
    }

    /** The workload as given, its lengths unbounded. */
    public Workload workload() {
        return workload;
    }

    /** The workload cut at {@code maxMessage} bytes. */
    public Workload truncatedAt(int maxMessage) {
        return workload.truncatedAt(maxMessage);
    }
}
