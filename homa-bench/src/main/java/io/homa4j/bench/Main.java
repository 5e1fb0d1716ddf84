package io.homa4j.bench;

import io.homa4j.bench.cli.Cli;

/**
 * Entry point of {@code homa-bench.jar}: {@code server | client | node | merge | compare | simulate | soak | hostile |
 * faults | jmh}; {@code --help} lists them, {@code COMMAND --help} tells a command's options (see
 * {@link io.homa4j.bench.cli.Cli}).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int code = Cli.run(args, System.out, System.err);
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }
}
