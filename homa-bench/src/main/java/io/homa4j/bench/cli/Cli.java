package io.homa4j.bench.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * Dispatches a command line to its subcommand. Exit codes: 0 success, 1 failure while running, 2 bad arguments
 * (one line naming the problem, then the usage, on stderr).
 */
public final class Cli {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    private Cli() {
    }

    public static int run(String[] argv, PrintStream out, PrintStream err) {
        if (argv.length == 0) {
            return usage(err, "missing command");
        }
        List<String> rest = Arrays.asList(argv).subList(1, argv.length);
        Command command;
        switch (argv[0]) {
            case "server": command = new ServerCommand(); break;
            case "client": command = new ClientCommand(); break;
            case "node": command = new NodeCommand(); break;
            case "merge": command = new MergeCommand(); break;
            case "compare": command = new CompareCommand(); break;
            case "jmh": command = new JmhCommand(); break;
            case "faults": command = new FaultsCommand(); break;
            case "simulate": command = io.homa4j.bench.simulate.SimulateCommand::run; break;
            case "soak": command = new SoakCommand(); break;
            case "hostile": command = new HostileCommand(); break;
            case "help": case "-h": case "--help":
                out.println(Usage.TEXT);
                return OK;
            default:
                return usage(err, "unknown command '" + argv[0] + "'");
        }
        try {
            return command.run(rest, out, err);
        } catch (UsageException e) {
            return usage(err, e.getMessage());
        } catch (Exception e) {
            err.println("homa-bench " + argv[0] + ": error: " + e.getMessage());
            return FAILED;
        }
    }

    private static int usage(PrintStream err, String message) {
        err.println("homa-bench: " + message);
        err.println(Usage.TEXT);
        return USAGE;
    }
}
