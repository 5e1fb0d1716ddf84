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

    public boolean isFlag() {
        return label == null;
    }
}
