package io.homa4j.bench.cli;

import io.homa4j.bench.simulate.SimulateCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.AnnotatedElement;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

/**
 * The bench jar's command line: picocli parses it into the annotated {@code @Command} classes, one per subcommand,
 * generates each one's {@code --help} and suggests the nearest name for a mistyped command or option. Exit codes:
 * 0 success, 1 failure while running, 2 bad arguments (one line naming the problem, suggestions, then the
 * command's usage, on stderr).
 */
public final class Cli {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    /** How the usage names the program. */
    public static final String PROGRAM = "java -jar homa-bench.jar";
    private static final int HELP_WIDTH = 110;

    private Cli() {
    }

    /** The top of the command line: every subcommand, in the order the help lists them. */
    @Command(name = PROGRAM, sortOptions = false,
            description = {"Homa4J's bench: Homa against TCP on loopback, in an emulated rack of network namespaces,"
                    + " or in a simulated one; fault, hostile-peer and soak runs; JMH.", "",
                    "`" + PROGRAM + " COMMAND --help` tells a command's options."},
            subcommands = {ServerCommand.class, ClientCommand.class, NodeCommand.class, UnloadedCommand.class,
                    MergeCommand.class, CompareCommand.class, SimulateCommand.class, SoakCommand.class, HostileCommand.class,
                    FaultsCommand.class, JmhCommand.class, CommandLine.HelpCommand.class})
    static final class Root {
        @Mixin
        HelpOption help;
    }

    public static int run(String[] argv, PrintStream out, PrintStream err) {
        CommandLine cli = commandLine(new Root());
        cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cli.setParameterExceptionHandler(Cli::usageError);
        cli.setExecutionStrategy(parsed -> execute(parsed, out, err));
        return cli.execute(argv);
    }

    /**
     * Parses {@code argv} (the arguments after the command's name) into {@code command} as the command line would,
     * ranges checked; bad ones throw picocli's {@link ParameterException}. For tests, and for a plan parsed back
     * from the arguments it rendered.
     */
    public static <T> T parse(T command, String... argv) {
        CommandLine cli = commandLine(command);
        ParseResult parsed = cli.parseArgs(argv);
        checkBounds(parsed);
        return command;
    }

    /** Parses a whole command line, command name first, ranges checked, without running it (for tests of docs). */
    static ParseResult parseCommandLine(String... argv) {
        ParseResult parsed = commandLine(new Root()).parseArgs(argv);
        if (parsed.subcommand() != null) {
            checkBounds(parsed.subcommand());
        }
        return parsed;
    }

    /** Every subcommand's picocli model, in help order (for tests of the help). */
    static List<CommandLine> subcommands() {
        return List.copyOf(commandLine(new Root()).getSubcommands().values());
    }

    private static CommandLine commandLine(Object command) {
        CommandLine cli = new CommandLine(command);
        registerEnumConverters(cli);
        cli.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        cli.setUsageHelpWidth(HELP_WIDTH);
        cli.setExpandAtFiles(false); // an argument starting with '@' is a value, as the shell wrote it
        CommandLine jmh = cli.getSubcommands().get(JmhCommand.NAME);
        if (jmh != null) { // every later token goes to JMH as it is, options of JMH's included
            jmh.setUnmatchedOptionsArePositionalParams(true);
            jmh.setStopAtPositional(true);
        }
        return cli;
    }

    /**
     * Every enum option takes its constants by their {@code toString()} (the lower-case names the help shows), in
     * any case; a wrong one gets an error that lists them.
     */
    private static void registerEnumConverters(CommandLine cli) {
        java.util.Set<Class<?>> enums = new java.util.LinkedHashSet<>();
        List<CommandLine> all = new java.util.ArrayList<>(List.of(cli));
        for (int i = 0; i < all.size(); i++) {
            all.addAll(all.get(i).getSubcommands().values());
            for (OptionSpec option : all.get(i).getCommandSpec().options()) {
                for (Class<?> type : option.auxiliaryTypes()) {
                    if (type.isEnum()) {
                        enums.add(type);
                    }
                }
            }
        }
        for (Class<?> type : enums) {
            registerEnumConverter(cli, type);
        }
    }

    private static <E> void registerEnumConverter(CommandLine cli, Class<E> type) {
        E[] constants = type.getEnumConstants();
        List<String> names = java.util.Arrays.stream(constants).map(Object::toString).toList();
        cli.registerConverter(type, value -> {
            for (E constant : constants) {
                if (constant.toString().equalsIgnoreCase(value.trim())) {
                    return constant;
                }
            }
            throw new CommandLine.TypeConversionException("must be " + String.join(", ",
                    names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1) + ", not '" + value
                    + "'");
        });
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
        if (!(sub.commandSpec().userObject() instanceof BenchCommand command)) {
            return new CommandLine.RunLast().execute(parsed); // picocli's own help command
        }
        checkBounds(sub);
        try {
            return command.run(out, err);
        } catch (UsageException e) {
            throw new ParameterException(sub.commandSpec().commandLine(), e.getMessage());
        } catch (Exception e) {
            err.println("homa-bench " + sub.commandSpec().name() + ": error: " + e.getMessage());
            return FAILED;
        }
    }

    /** Checks every option given on the command line against its {@link Bounds}. */
    private static void checkBounds(ParseResult parsed) {
        for (OptionSpec option : parsed.matchedOptions()) {
            Bounds bounds = bounds(option);
            if (bounds == null) {
                continue;
            }
            Object value = option.getValue();
            Collection<?> values = value instanceof Collection<?> c ? c : value == null ? List.of() : List.of(value);
            for (Object v : values) {
                double d = ((Number) v).doubleValue();
                boolean aboveMin = bounds.minExclusive() ? d > bounds.min() : d >= bounds.min();
                boolean belowMax = bounds.maxExclusive() ? d < bounds.max() : d <= bounds.max();
                if (!aboveMin || !belowMax) {
                    throw new ParameterException(parsed.commandSpec().commandLine(), String.format("%s must be in %s%s,"
                                    + " %s%s: %s", option.longestName(), bounds.minExclusive() ? "(" : "[",
                            number(bounds.min()), number(bounds.max()), bounds.maxExclusive() ? ")" : "]", v));
                }
            }
        }
    }

    /**
     * The options given on the command line as picocli matched them, each as {@code --name value...} (a flag
     * alone), the values as typed: to hand the same options to the same command in another JVM.
     */
    public static List<String> givenArgs(ParseResult parsed) {
        List<String> argv = new java.util.ArrayList<>();
        for (OptionSpec option : parsed.matchedOptions()) {
            if (option.usageHelp()) {
                continue;
            }
            if (option.arity().max() == 0) {
                argv.add(option.longestName());
                continue;
            }
            for (String value : option.originalStringValues()) {
                argv.add(option.longestName());
                argv.add(value);
            }
        }
        return argv;
    }

    private static Bounds bounds(ArgSpec option) {
        return option.userObject() instanceof AnnotatedElement element ? element.getAnnotation(Bounds.class) : null;
    }

    private static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e18 ? Long.toString((long) d) : Double.toString(d);
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
