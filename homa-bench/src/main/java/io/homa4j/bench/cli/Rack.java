package io.homa4j.bench.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The emulated rack (homa-bench/netlab: network namespaces, veth links, a bridge with priority queues) as
 * {@code compare} uses it: the netlab scripts travel inside the bench jar and are unpacked into a temporary
 * directory; each repeat is one run of {@code compare.sh}, which brings the rack up, runs one node JVM per host for
 * each protocol and takes it down. The rack is always removed: {@code compare.sh} tears down on exit, failure or
 * signal, and {@link #close} (also run from a shutdown hook, so on Ctrl-C or SIGTERM of this JVM) stops a
 * {@code compare.sh} still running, waits for its teardown, then runs {@code netlab.sh down} for this rack's
 * prefix as a last resort.
 */
final class Rack implements AutoCloseable {
    private static final String RESOURCES = "/io/homa4j/bench/netlab/";
    private static final List<String> SCRIPTS = List.of("netlab.sh", "compare.sh", "lib.sh", "nettool.py",
            "rootless.sh", "short-waits.py");
    private static final long TEARDOWN_SECONDS = 30;

    private final Path scripts;
    private final String prefix;
    /** Not root: every script runs through rootless.sh, in a user namespace that owns the rack. */
    private final boolean rootless;
    private final Thread shutdownHook;
    private volatile Process running;
    private boolean closed;

    private Rack(Path scripts, String prefix) {
        this.scripts = scripts;
        this.prefix = prefix;
        this.rootless = !isRoot();
        this.shutdownHook = new Thread(this::teardown, "homa-bench-rack-teardown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Why this process cannot run the rack here, or null when it can: Linux, {@code ip}, {@code tc}, {@code bash}
     * and {@code python3} on the PATH, and a network namespace can really be made (containers may forbid it even to
     * root): as root, or else rootless, in a user namespace ({@code netlab/rootless.sh check}).
     */
    static String unavailableReason() {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return "not Linux";
        }
        for (String tool : List.of("ip", "tc", "bash", "python3")) {
            if (!onPath(tool)) {
                return "'" + tool + "' is not installed";
            }
        }
        if (!isRoot()) {
            String reason = rootlessUnavailableReason();
            return reason == null ? null : "not root, and no rootless rack: " + reason;
        }
        String probe = "homa-probe-" + ProcessHandle.current().pid();
        if (exec(List.of("ip", "netns", "add", probe)) != 0) {
            return "cannot create network namespaces here";
        }
        exec(List.of("ip", "netns", "del", probe));
        return null;
    }

    /** Whether the rack runs rootless here (this process is not root). */
    static boolean rootlessHere() {
        return !isRoot();
    }

    /** Why a user namespace cannot hold the rack here ({@code rootless.sh check}'s words), or null when it can. */
    private static String rootlessUnavailableReason() {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("homa-rootless-");
            Path script = dir.resolve("rootless.sh");
            try (InputStream in = Rack.class.getResourceAsStream(RESOURCES + "rootless.sh")) {
                if (in == null) {
                    return "the bench jar lacks netlab/rootless.sh (rebuild it)";
                }
                Files.copy(in, script);
            }
            Process p = new ProcessBuilder("bash", script.toString(), "check").redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "the user-namespace check did not finish";
            }
            return p.exitValue() == 0 ? null : said.replaceFirst("^rootless\\.sh: ", "");
        } catch (IOException e) {
            return "cannot check for user namespaces: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            if (dir != null) {
                dir.resolve("rootless.sh").toFile().delete();
                dir.toFile().delete();
            }
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0"); // effective uid
                }
            }
        } catch (IOException e) {
            // fall through: not known to be root
        }
        return false;
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    private static int exec(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Unpacks the netlab scripts; the rack's namespaces will be named {@code <prefix>-sw}, {@code <prefix>-h1}... */
    static Rack open(String prefix) throws IOException {
        Path dir = Files.createTempDirectory("homa-netlab-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        for (String name : SCRIPTS) {
            try (InputStream in = Rack.class.getResourceAsStream(RESOURCES + name)) {
                if (in == null) {
                    throw new IOException("the bench jar lacks the netlab script " + name + " (rebuild it)");
                }
                Path file = dir.resolve(name);
                Files.copy(in, file);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
            }
        }
        return new Rack(dir, prefix);
    }

    /**
     * Runs {@code compare.sh args} (the rack's prefix, java and class path added), its output into {@code log};
     * every line is also handed to {@code lines} (for progress). Returns compare.sh's exit code.
     */
    int compare(List<String> args, Path log, Consumer<String> lines) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (rootless) {
            command.addAll(List.of("bash", scripts.resolve("rootless.sh").toString()));
        }
        command.addAll(List.of("bash", scripts.resolve("compare.sh").toString(),
                "--prefix", prefix, "--java", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--classpath", Path.of(System.getProperty("java.class.path")).toAbsolutePath().toString()));
        command.addAll(args);
        Files.createDirectories(log.getParent());
        Process p;
        synchronized (this) {
            if (closed) {
                throw new IOException("the rack was closed");
            }
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            running = p;
        }
        p.getOutputStream().close();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8)); PrintStream file = new PrintStream(Files.newOutputStream(log), true,
                StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                file.println(line);
                lines.accept(line);
            }
        }
        int code = p.waitFor();
        running = null;
        return code;
    }

    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: nothing to remove
        }
    }

    private synchronized void teardown() {
        if (closed) {
            return;
        }
        closed = true;
        Process p = running;
        if (p != null && p.isAlive()) {
            p.toHandle().destroy(); // SIGTERM: compare.sh stops its JVMs and takes the rack down
            try {
                if (!p.waitFor(TEARDOWN_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!rootless) { // a rootless rack's namespaces end with the user namespace that owns them
            exec(List.of("bash", scripts.resolve("netlab.sh").toString(), "down", "--prefix", prefix));
        }
        try (Stream<Path> files = Files.walk(scripts)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
