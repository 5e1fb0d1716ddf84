package io.homa4j.bench.cli;

import io.homa4j.bench.simulate.SimulateCommand;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bench jar's command line, parsed by picocli: one subcommand per {@link Command}, each with {@code --help}
 * generated from its {@link CliOption}s; a mistyped command or option gets picocli's nearest-name suggestions.
 * Exit codes: 0 success, 1 failure while running, 2 bad arguments (one line naming the problem, suggestions, then
 * the command's usage, on stderr).
 *
 * <p>The commands declare their options programmatically rather than as annotated fields: their values go to
 * {@link Args}, whose typed getters check ranges and give defaults that depend on other options (the emulated
 * rack's and loopback's defaults differ), which fixed annotation defaults could not say.
 */
public final class Cli {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    /** How the usage names the program. */
    static final String PROGRAM = "java -jar homa-bench.jar";
    private static final int HELP_WIDTH = 110;

    private Cli() {
    }

    /** Every subcommand, in the order the help lists them. */
    static List<Command> commands() {
        return List.of(new ServerCommand(), new ClientCommand(), new NodeCommand(), new MergeCommand(),
                new CompareCommand(), new SimulateCommand(), new SoakCommand(), new HostileCommand(),
                new FaultsCommand(), new JmhCommand());
    }

    public static int run(String[] argv, PrintStream out, PrintStream err) {
        CommandLine cli = commandLine(commands());
        cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cli.setParameterExceptionHandler(Cli::usageError);
        cli.setExecutionStrategy(parsed -> execute(parsed, out, err));
        return cli.execute(argv);
    }

    /**
     * Parses {@code tokens} (the arguments after the command's name) as {@code command} would get them; bad ones
     * throw picocli's {@link ParameterException}. For tests, and for code that runs a command's plan directly.
     */
    public static Args parse(Command command, String... tokens) {
        CommandLine cli = new CommandLine(spec(command));
        configure(cli, command);
        return args(command, cli.parseArgs(tokens));
    }

    private static CommandLine commandLine(List<Command> commands) {
        CommandSpec root = CommandSpec.create().name(PROGRAM);
        root.usageMessage().description("Homa4J's bench: Homa against TCP on loopback, in an emulated rack of"
                + " network namespaces, or in a simulated one; fault, hostile-peer and soak runs; JMH.",
                "", "`" + PROGRAM + " COMMAND --help` tells a command's options.");
        root.addOption(helpOption());
        CommandLine cli = new CommandLine(root);
        for (Command command : commands) {
            CommandLine sub = new CommandLine(spec(command));
            cli.addSubcommand(command.name(), sub);
        }
        cli.addSubcommand("help", new CommandLine.HelpCommand());
        for (Command command : commands) {
            configure(cli.getSubcommands().get(command.name()), command);
        }
        cli.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        cli.setUsageHelpWidth(HELP_WIDTH);
        cli.setExpandAtFiles(false); // an argument starting with '@' is a value, as the shell wrote it
        return cli;
    }

    private static OptionSpec helpOption() {
        return OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build();
    }

    private static CommandSpec spec(Command command) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name(command.name());
        spec.usageMessage().description(command.description()).sortOptions(false);
        if (command.passesArgumentsThrough()) {
            spec.addPositional(PositionalParamSpec.builder().arity("0..*").type(String[].class)
                    .paramLabel("ARGS").description("handed on unparsed").build());
            return spec;
        }
        spec.addOption(helpOption());
        for (CliOption option : command.options()) {
            OptionSpec.Builder b = OptionSpec.builder("--" + option.name()).description(option.description())
                    .required(option.required());
            if (option.isFlag()) {
                b.arity("0").type(boolean.class);
            } else {
                b.arity("1").type(String.class).paramLabel(option.label());
            }
            spec.addOption(b.build());
        }
        return spec;
    }

    /** A pass-through command takes every later token as it is, options of another program included. */
    private static void configure(CommandLine cli, Command command) {
        if (command.passesArgumentsThrough()) {
            cli.setUnmatchedOptionsArePositionalParams(true);
            cli.setStopAtPositional(true);
        }
    }

    private static Args args(Command command, ParseResult parsed) {
        Map<String, String> values = new LinkedHashMap<>();
        Set<String> flags = new LinkedHashSet<>();
        for (OptionSpec option : parsed.matchedOptions()) {
            if (option.usageHelp()) {
                continue;
            }
            String name = option.longestName().substring(2);
            if (option.arity().max() == 0) {
                flags.add(name);
            } else {
                values.put(name, option.getValue());
            }
        }
        List<String> passedThrough = command.passesArgumentsThrough()
                ? List.of(parsed.matchedPositionalValue(0, new String[0])) : List.of();
        return new Args(command.name(), values, flags, passedThrough);
    }

    private static int execute(ParseResult parsed, PrintStream out, PrintStream err) {
        Integer helpExit = CommandLine.executeHelpRequest(parsed);
        if (helpExit != null) {
            return helpExit;
        }
        ParseResult sub = parsed.subcommand();
        if (sub == null) {
            throw new ParameterException(parsed.commandSpec().commandLine(), "missing command");
        }
        if (!(sub.commandSpec().userObject() instanceof Command command)) {
            return new CommandLine.RunLast().execute(parsed); // picocli's own help command
        }
        try {
            return command.run(args(command, sub), out, err);
        } catch (UsageException e) {
            throw new ParameterException(sub.commandSpec().commandLine(), e.getMessage());
        } catch (Exception e) {
            err.println("homa-bench " + command.name() + ": error: " + e.getMessage());
            return FAILED;
        }
    }

    /** One line naming the problem (and the command), picocli's suggestions, then that command's usage. */
    private static int usageError(ParameterException e, String[] argv) {
        CommandLine where = e.getCommandLine();
        PrintWriter err = where.getErr();
        String name = where.getCommandName();
        String message = e.getMessage();
        boolean named = where.getParent() == null || message.startsWith(name + ": ");
        err.println("homa-bench: " + (named ? message : name + ": " + message));
        UnmatchedArgumentException.printSuggestions(e, err);
        where.usage(err);
        return USAGE;
    }
}
