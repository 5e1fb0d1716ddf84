package io.homa4j.bench.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of one subcommand as picocli parsed them ({@link Cli}), with typed getters that check ranges and
 * supply defaults; every problem is a {@link UsageException} naming the option. Picocli has already refused
 * unknown options (suggesting the nearest names), options given twice, missing values and required options.
 */
public final class Args {
    private final String command;
    private final Map<String, String> values;
    private final Set<String> flags;
    private final List<String> passedThrough;

    Args(String command, Map<String, String> values, Set<String> flags, List<String> passedThrough) {
        this.command = command;
        this.values = values;
        this.flags = flags;
        this.passedThrough = passedThrough;
    }

    /** The command line as picocli parsed it, in canonical form: {@code --name value} and flags, in order. */
    public List<String> tokens() {
        List<String> tokens = new ArrayList<>();
        values.forEach((name, value) -> {
            tokens.add("--" + name);
            tokens.add(value);
        });
        flags.forEach(flag -> tokens.add("--" + flag));
        return tokens;
    }

    /** Whether the flag {@code --name} was given. */
    public boolean flag(String name) {
        return flags.contains(name);
    }

    /** Every argument after the command's name, for a command that {@link Command#passesArgumentsThrough()}. */
    public List<String> passedThrough() {
        return passedThrough;
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String string(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    public String required(String name) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            throw new UsageException(command + ": missing required option --" + name);
        }
        return v;
    }

    public long longValue(String name, Long defaultValue, long min, long max) throws UsageException {
        String v = defaultValue == null ? required(name) : string(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < min || n > max) {
                throw new UsageException(command + ": --" + name + " must be in [" + min + ", " + max + "]: " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " must be an integer: " + v);
        }
    }

    public int intValue(String name, Integer defaultValue, int min, int max) throws UsageException {
        return (int) longValue(name, defaultValue == null ? null : (long) defaultValue, min, max);
    }

    /** A number in {@code (minExclusive, max]}. */
    public double doubleValue(String name, Double defaultValue, double minExclusive, double max)
            throws UsageException {
        String v = defaultValue == null ? required(name) : string(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (!(d > minExclusive && d <= max)) {
                throw new UsageException(command + ": --" + name + " must be in (" + minExclusive + ", " + max + "]: "
                        + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " must be a number: " + v);
        }
    }

    public InetAddress address(String name, InetAddress defaultValue) throws UsageException {
        String v = string(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            return InetAddress.getByName(v);
        } catch (UnknownHostException e) {
            throw new UsageException(command + ": --" + name + " is not an address: " + v);
        }
    }

    /** A comma-separated list of {@code host:port} (IPv6 as {@code [addr]:port}). */
    public List<InetSocketAddress> endpoints(String name) throws UsageException {
        String v = required(name);
        List<InetSocketAddress> list = new ArrayList<>();
        for (String item : v.split(",")) {
            String s = item.trim();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new UsageException(command + ": --" + name + " needs host:port entries: " + item);
            }
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new UsageException(command + ": --" + name + " has a bad port: " + item);
            }
            if (port < 1 || port > 65_535) {
                throw new UsageException(command + ": --" + name + " port out of range: " + item);
            }
            try {
                list.add(new InetSocketAddress(InetAddress.getByName(host), port));
            } catch (UnknownHostException e) {
                throw new UsageException(command + ": --" + name + " has an unknown host: " + item);
            }
        }
        return list;
    }

    /** Comma-separated non-empty strings. */
    public List<String> list(String name, String defaultValue) throws UsageException {
        String v = defaultValue == null ? required(name) : string(name, defaultValue);
        List<String> list = new ArrayList<>();
        for (String item : v.split(",")) {
            if (item.isBlank()) {
                throw new UsageException(command + ": --" + name + " has an empty entry: " + v);
            }
            list.add(item.trim());
        }
        return list;
    }
}
