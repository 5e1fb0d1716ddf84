package io.homa4j.bench.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one file a measuring command writes for people and docs to quote: where the figures come from ({@code key:
 * value} lines: command line, start and end (UTC), commit, machine, load average before and after), then every
 * figure the command printed, as it printed them. Started before the run so that the load average before is the
 * machine's, not the run's.
 */
public final class ResultsFile {
    private final String commandLine;
    private final Instant started;
    private final String loadBefore;

    private ResultsFile(String commandLine, Instant started, String loadBefore) {
        this.commandLine = commandLine;
        this.started = started;
        this.loadBefore = loadBefore;
    }

    /** Starts the record of {@code command} run with {@code argv} (every option, defaults resolved). */
    public static ResultsFile start(String command, List<String> argv) {
        List<String> words = new ArrayList<>();
        words.add(Cli.PROGRAM);
        words.add(command);
        argv.forEach(a -> words.add(quoted(a)));
        return new ResultsFile(String.join(" ", words), Instant.now(), Provenance.loadAverage());
    }

    /** The load average when the record started. */
    public String loadBefore() {
        return loadBefore;
    }

    /** Writes the provenance lines, a blank line, then {@code results}; returns the file. */
    public Path write(Path file, List<String> results) throws IOException {
        List<String> lines = new ArrayList<>(header(Instant.now(), Provenance.loadAverage()));
        lines.add("");
        lines.addAll(results);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    List<String> header(Instant finished, String loadAfter) {
        Runtime runtime = Runtime.getRuntime();
        return List.of("command: " + commandLine,
                "started: " + Provenance.second(started),
                "finished: " + Provenance.second(finished),
                "commit: " + Provenance.commit(),
                String.format(Locale.ROOT, "machine: %d cores, %s %s %s, Java %s (%s), max heap %d MB",
                        runtime.availableProcessors(), System.getProperty("os.name"),
                        System.getProperty("os.version"), System.getProperty("os.arch"),
                        System.getProperty("java.runtime.version", System.getProperty("java.version")),
                        System.getProperty("java.vm.name"), runtime.maxMemory() >> 20),
                "load average before: " + loadBefore,
                "load average after: " + loadAfter);
    }

    private static String quoted(String arg) {
        return arg.matches("[A-Za-z0-9_./,:=@%+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }
}
