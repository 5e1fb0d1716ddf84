package io.homa4j.bench.cli;

import io.homa4j.bench.Main;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a bench command in a child JVM: the same java and class path as this JVM, this JVM's options (debugger
 * and agent options left out: a second JVM cannot listen on the debugger's port or share an agent's output) plus
 * any the caller adds, then {@code io.homa4j.bench.Main COMMAND ARGS}. The arguments come from a typed plan
 * ({@link ServerPlan#argv()}, {@link ClientPlan#argv()}), which the child's command parses back.
 */
public final class ChildJvm {
    private static final long STOP_SECONDS = 10;

    private ChildJvm() {
    }

    /** {@code java jvmOptions -cp classPath io.homa4j.bench.Main subcommand argv}. */
    public static List<String> command(String java, List<String> jvmOptions, String classPath, String subcommand,
                                       List<String> argv) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(Main.class.getName());
        command.add(subcommand);
        command.addAll(argv);
        return command;
    }

    /** {@code subcommand argv} in a JVM like this one, with {@code extraJvmOptions} after this JVM's options. */
    public static List<String> command(List<String> extraJvmOptions, String subcommand, List<String> argv) {
        List<String> options = new ArrayList<>(inheritedJvmOptions());
        options.addAll(extraJvmOptions);
        return command(javaBinary(), options, System.getProperty("java.class.path"), subcommand, argv);
    }

    /** This JVM's options, without those that only one JVM at a time may use (debugger, agents). */
    public static List<String> inheritedJvmOptions() {
        List<String> options = new ArrayList<>();
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!flag.startsWith("-agentlib") && !flag.startsWith("-javaagent") && !flag.startsWith("-Xrunjdwp")
                    && !flag.startsWith("-Xdebug")) {
                options.add(flag);
            }
        }
        return options;
    }

    /** The java binary this JVM runs. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts {@code command} with its stdout and stderr piped to the caller and its stdin closed. */
    public static Process start(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        process.getOutputStream().close();
        return process;
    }

    /** Runs {@code command} on this JVM's stdin, stdout and stderr and returns its exit code. */
    public static int runInheritingIo(List<String> command) throws IOException, InterruptedException {
        return new ProcessBuilder(command).inheritIO().start().waitFor();
    }

    /** Copies {@code in} to {@code to} on a daemon thread until the child closes it; writes hold {@code to}'s lock. */
    public static Thread forward(InputStream in, OutputStream to, String name) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    synchronized (to) {
                        to.write(buffer, 0, n);
                        to.flush();
                    }
                }
            } catch (IOException e) {
                // the child closed its end
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * SIGTERM (a bench server closes its endpoint and exits 0), then SIGKILL if it has not exited within ten
     * seconds; returns the exit code, or -1 if it still runs. {@code ProcessHandle.destroy} only signals, where
     * {@code Process.destroy} would also close this side of the child's pipes and lose its last lines.
     */
    public static int stop(Process process) throws InterruptedException {
        process.toHandle().destroy();
        if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_SECONDS, TimeUnit.SECONDS);
        }
        return process.isAlive() ? -1 : process.exitValue();
    }
}
