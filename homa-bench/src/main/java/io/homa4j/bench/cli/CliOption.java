package io.homa4j.bench.cli;

/**
 * One option of a subcommand as picocli parses it: {@code --name VALUE} (or {@code --name=VALUE}), or a flag
 * {@code --name} without a value. Values reach the command as text through {@link Args}, whose typed getters
 * check ranges and supply defaults that may depend on other options (the rack's and loopback's defaults differ).
 *
 * @param name        the name without its dashes
 * @param label       the value's placeholder in the help (null for a flag)
 * @param description what it sets, with its default, for {@code --help}
 * @param required    whether picocli refuses a command line without it
 */
public record CliOption(String name, String label, String description, boolean required) {

    /** An optional {@code --name VALUE}. */
    public static CliOption value(String name, String label, String description) {
        return new CliOption(name, label, description, false);
    }

    /** A required {@code --name VALUE}. */
    public static CliOption required(String name, String label, String description) {
        return new CliOption(name, label, description, true);
    }

    /** A {@code --name} flag. */
    public static CliOption flag(String name, String description) {
        return new CliOption(name, null, description, false);
    }

    /** {@code --workload}, as every command that generates messages takes it (default w4). */
    public static CliOption workload() {
        return value("workload", "w1..w5|SIZE", "message lengths: the paper's workloads, or one size (default w4)");
    }

    /** {@code --seed} (default 1). */
    public static CliOption seed() {
        return value("seed", "S", "random seed (default 1)");
    }

    /** {@code --rtt-us}: what Homa sizes its windows and timers for. */
    public static CliOption rttMicros(int defaultMicros) {
        return value("rtt-us", "N", "Homa's unloaded round trip, microseconds (default " + defaultMicros + ")");
    }

    /** {@code --link-framing-bytes}: what the link charges per packet beyond the IP packet (Homa's pacer). */
    public static CliOption linkFramingBytes() {
        return value("link-framing-bytes", "B", "bytes per packet the link charges beyond the IP packet, added by"
                + " Homa's pacer: 38 for an Ethernet NIC at line rate, 14 under a tc shaper (default 0)");
    }

    /** The value of {@link #linkFramingBytes()}. */
    static int linkFramingBytes(Args args) throws UsageException {
        return args.intValue("link-framing-bytes", 0, 0, 1_000);
    }

    /** {@code --max-message}: the longest message; a workload is cut there. */
    public static CliOption maxMessage(int defaultBytes) {
        return value("max-message", "B", "longest message; the workload is cut there (default " + defaultBytes + ")");
    }

    /** {@code --handler}: the echo server mishandles every tenth request this way (default: none). */
    public static CliOption handler() {
        return value("handler", "echo|never-reply|released-reply", "how every tenth request is mishandled (default"
                + " echo: none is)");
    }

    public boolean isFlag() {
        return label == null;
    }
}
