package io.homa4j.bench.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where a figure comes from, for its title and for docs: the commit of the checkout the bench runs from (git,
 * looked up from the bench's class path, so `java -jar homa-bench/target/homa-bench.jar` in a clone names that
 * clone's HEAD, marked "+changes" when tracked files differ from it) and the machine's load average.
 */
public final class Provenance {
    private static final DateTimeFormatter MINUTE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter SECOND =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
    private static volatile String commit;

    private Provenance() {
    }

    /** "c2e0715", "c2e0715+changes", or "unknown" outside a git checkout (or without git). */
    public static String commit() {
        String c = commit;
        if (c == null) {
            c = lookUpCommit();
            commit = c;
        }
        return c;
    }

    private static String lookUpCommit() {
        Path where = Path.of(System.getProperty("java.class.path", ".").split(java.io.File.pathSeparator)[0])
                .toAbsolutePath();
        Path dir = Files.isDirectory(where) ? where : where.getParent();
        if (dir == null) {
            return "unknown";
        }
        String head = git(dir, "rev-parse", "--short", "HEAD");
        if (head == null || head.isEmpty()) {
            return "unknown";
        }
        String changes = git(dir, "status", "--porcelain", "--untracked-files=no");
        return changes == null || changes.isEmpty() ? head : head + "+changes";
    }

    private static String git(Path dir, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return null;
            }
            return new String(output, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The time to the minute, as yyyy-MM-dd HH:mm UTC. */
    public static String minute(Instant when) {
        return MINUTE.format(when);
    }

    /** The time to the second, as yyyy-MM-dd HH:mm:ss UTC. */
    static String second(Instant when) {
        return SECOND.format(when);
    }

    /** The 1, 5 and 15 minute load averages: benchmarks on a shared machine should say how busy it was. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
