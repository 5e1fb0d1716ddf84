package io.homa4j.bench.cli;

import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;
import io.homa4j.bench.workload.Workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code compare}: Homa then TCP on loopback with the same workload, seed and load, then the merged table and plot.
 *
 * <p>Default mode {@code child}: for each protocol, a server JVM and a client JVM (the same java binary, class path
 * and JVM flags as this one), as two hosts would run them; each side has one event-loop thread for either
 * protocol. Mode {@code in-process} runs server and client in this JVM (faster to start; used by the tests).
 */
final class CompareCommand implements Command {
    /**
     * 1 Gbit/s: at 80% load, W4 truncated at 1 MB is about 1,700 requests/s and 100 MB/s each way, which one core's
     * userspace Homa (and TCP) over loopback carry with room to spare on two cores; see docs/benchmarks.md.
     */
    static final int DEFAULT_LINK_MBPS = 1_000;
    static final double DEFAULT_DURATION_SECONDS = 20;
    static final double DEFAULT_WARMUP_SECONDS = 3;
    static final String DEFAULT_OUT = "results/compare";
    private static final long SERVER_START_TIMEOUT_SECONDS = 30;
    private static final Set<String> OPTIONS = Set.of("workload", "load", "link-mbps", "duration", "max-message",
            "out", "protocols", "mode", "warmup", "seed", "max-outstanding", "tcp-connections", "rtt-us",
            "homa-link-mbps", "drain");

    @Override
    public int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        Args args = Args.parse("compare", argv, OPTIONS);
        int maxMessage = args.intValue("max-message", ClientCommand.DEFAULT_MAX_MESSAGE, 1, Integer.MAX_VALUE - 8);
        String workloadSpec = args.string("workload", "w4");
        Workload workload = ClientCommand.workload(args, maxMessage);
        double load = args.doubleValue("load", 0.8, 0, 10);
        int linkMbps = args.intValue("link-mbps", DEFAULT_LINK_MBPS, 1, 1_000_000);
        int homaLinkMbps = args.intValue("homa-link-mbps", linkMbps, 1, 1_000_000);
        int rttUs = args.intValue("rtt-us", ClientCommand.DEFAULT_RTT_US, 1, 1_000_000);
        double duration = args.doubleValue("duration", DEFAULT_DURATION_SECONDS, 0, 86_400);
        double warmup = args.has("warmup") ? args.doubleValue("warmup", null, -1e-9, 86_400) : DEFAULT_WARMUP_SECONDS;
        double drain = args.has("drain") ? args.doubleValue("drain", null, -1e-9, 86_400) : 10;
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        int maxOutstanding = args.intValue("max-outstanding", ClientCommand.DEFAULT_MAX_OUTSTANDING, 1, 1_000_000);
        int connections = args.intValue("tcp-connections", TransportOptions.DEFAULT_TCP_CONNECTIONS, 1, 1_024);
        Path outDir = Path.of(args.string("out", DEFAULT_OUT));
        String mode = args.string("mode", "child");
        if (!mode.equals("child") && !mode.equals("in-process")) {
            throw new UsageException("compare: --mode must be child or in-process: " + mode);
        }
        List<Protocol> protocols = new ArrayList<>();
        for (String p : args.list("protocols", "homa,tcp")) {
            try {
                Protocol protocol = Protocol.parse(p);
                if (protocols.contains(protocol)) {
                    throw new UsageException("compare: --protocols names " + p + " twice");
                }
                protocols.add(protocol);
            } catch (IllegalArgumentException e) {
                throw new UsageException("compare: " + e.getMessage());
            }
        }
        double loadMbps = load * linkMbps;
        String title = String.format(Locale.ROOT, "%s%s, %.0f%% of %,d Mbit/s, loopback: Homa vs TCP",
                workload.name(), maxMessage < Integer.MAX_VALUE ? " (max " + bytesLabel(maxMessage) + ")" : "",
                load * 100, linkMbps);
        out.println(String.format(Locale.ROOT, "compare: %s, offered %.0f Mbit/s (%.0f%% of %d), %s s + %s s warm-up"
                        + " per protocol, mode %s, out %s", workload, loadMbps, load * 100, linkMbps, trim(duration),
                trim(warmup), mode, outDir));

        String loadAverage = loadAverage();
        ResultSet results = new ResultSet();
        List<String> summaries = new ArrayList<>();
        List<String> dirs = new ArrayList<>();
        for (int i = 0; i < protocols.size(); i++) {
            Protocol protocol = protocols.get(i);
            Path dir = outDir.resolve(protocol.id());
            dirs.add(dir.toString());
            int protocolLink = protocol == Protocol.HOMA ? homaLinkMbps : linkMbps;
            List<String> clientArgs = new ArrayList<>(List.of("--protocol", protocol.id(),
                    "--workload", workloadSpec, "--load-mbps", Double.toString(loadMbps),
                    "--duration", Double.toString(duration), "--warmup", Double.toString(warmup),
                    "--drain", Double.toString(drain), "--max-message", Integer.toString(maxMessage),
                    "--out", dir.toString(), "--link-mbps", Integer.toString(protocolLink),
                    "--rtt-us", Integer.toString(rttUs), "--max-outstanding", Integer.toString(maxOutstanding),
                    "--seed", Long.toString(seed), "--tcp-connections", Integer.toString(connections)));
            List<String> serverArgs = List.of("--protocol", protocol.id(), "--port", "0", "--bind", "127.0.0.1",
                    "--link-mbps", Integer.toString(protocolLink), "--rtt-us", Integer.toString(rttUs),
                    "--max-message", Integer.toString(maxMessage));
            out.println(String.format(Locale.ROOT, "compare: [%d/%d] %s", i + 1, protocols.size(), protocol.id()));
            out.flush();
            String summary = mode.equals("child")
                    ? runChildren(protocol, serverArgs, clientArgs, out, err)
                    : runInProcess(protocol, serverArgs, clientArgs, out, err);
            if (summary == null) {
                err.println("compare: the " + protocol.id() + " run failed; see above");
                return Cli.FAILED;
            }
            summaries.add(summary);
            results.addAll(HistogramsCsv.read(dir.resolve(HistogramsCsv.FILE_NAME)));
        }
        out.println();
        MergeCommand.write(results, outDir, title, failureNotes(summaries), out);
        summaries.forEach(out::println);
        out.println("load average before / after: " + loadAverage + " / " + loadAverage());
        return Cli.OK;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** "homa: 19126 of 25401 calls failed, 12769 unfinished (not plotted)" for each run that lost calls. */
    static List<String> failureNotes(List<String> summaries) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(
                "^(\\w+): requests sent=(\\d+) completed=\\d+ failed=(\\d+) unfinished=(\\d+) skipped_outstanding_cap=(\\d+)");
        List<String> notes = new ArrayList<>();
        for (String line : summaries) {
            java.util.regex.Matcher m = p.matcher(line);
            if (m.find() && (!m.group(3).equals("0") || !m.group(4).equals("0") || !m.group(5).equals("0"))) {
                notes.add(String.format(Locale.ROOT, "%s: %s of %s calls failed, %s unfinished, %s skipped"
                        + " (not in the curves)", m.group(1), m.group(3), m.group(2), m.group(4), m.group(5)));
            }
        }
        return notes;
    }

    /** The 1, 5 and 15 minute load averages: benchmarks on a shared machine should say how busy it was. */
    static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Runs server and client in this JVM; returns the client's summary line, or null when the run failed. */
    private static String runInProcess(Protocol protocol, List<String> serverArgs, List<String> clientArgs,
                                       PrintStream out, PrintStream err) throws Exception {
        int maxMessage = Integer.parseInt(serverArgs.get(serverArgs.indexOf("--max-message") + 1));
        int link = Integer.parseInt(serverArgs.get(serverArgs.indexOf("--link-mbps") + 1));
        int rtt = Integer.parseInt(serverArgs.get(serverArgs.indexOf("--rtt-us") + 1));
        TransportOptions serverOptions = new TransportOptions(InetAddress.getByName("127.0.0.1"), 0, link, rtt,
                maxMessage, TransportOptions.DEFAULT_TCP_CONNECTIONS);
        try (BenchServer server = protocol.startServer(serverOptions)) {
            err.println(server.describe());
            List<String> args = new ArrayList<>(clientArgs);
            InetSocketAddress a = server.localAddress();
            args.addAll(List.of("--servers", a.getAddress().getHostAddress() + ":" + a.getPort(),
                    "--progress", System.console() != null ? "cr" : "lines"));
            ClientCommand.Plan plan = ClientCommand.plan(Args.parse("client", args, clientOptionNames()));
            RunStats stats = ClientCommand.execute(plan, out, err);
            if (!server.statistics().isEmpty()) {
                err.println(server.statistics());
            }
            return ClientCommand.succeeded(stats, err) ? stats.summaryLine() : null;
        }
    }

    private static Set<String> clientOptionNames() {
        return Set.of("protocol", "servers", "workload", "load-mbps", "duration", "max-message", "out", "link-mbps",
                "rtt-us", "max-outstanding", "seed", "warmup", "drain", "tcp-connections", "progress");
    }

    /**
     * Runs a server JVM and a client JVM; returns the client's summary line, or null when the run failed (the
     * reason is on {@code err}).
     */
    private static String runChildren(Protocol protocol, List<String> serverArgs, List<String> clientArgs,
                                      PrintStream out, PrintStream err) throws Exception {
        Process server = start(command("server", serverArgs));
        Thread serverErr = null;
        try {
            CompletableFuture<String> ready = new CompletableFuture<>();
            Thread serverOut = new Thread(() -> readServerOutput(server.getInputStream(), ready, err), "server-out");
            serverOut.setDaemon(true);
            serverOut.start();
            serverErr = forward(server.getErrorStream(), err, "server-err");
            String address;
            try {
                address = ready.get(SERVER_START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                err.println("compare: the server did not report its address within " + SERVER_START_TIMEOUT_SECONDS
                        + " s");
                return null;
            } catch (java.util.concurrent.ExecutionException e) {
                err.println("compare: the server exited before listening (exit " + server.waitFor() + ")");
                return null;
            }
            List<String> args = new ArrayList<>(clientArgs);
            args.addAll(List.of("--servers", address, "--progress", System.console() != null ? "cr" : "lines"));
            Process client = start(command("client", args));
            CompletableFuture<String> summary = new CompletableFuture<>();
            String summaryPrefix = protocol.id() + ": requests sent=";
            Thread a = new Thread(() -> {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(client.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        if (line.startsWith(summaryPrefix)) {
                            summary.complete(line);
                        }
                        synchronized (out) {
                            out.println(line);
                        }
                    }
                } catch (IOException e) {
                    // the client went away; its exit code tells
                }
            }, "client-out");
            a.setDaemon(true);
            a.start();
            Thread b = forward(client.getErrorStream(), err, "client-err");
            int code = client.waitFor();
            a.join(5_000);
            b.join(5_000);
            if (code != 0) {
                err.println("compare: client exited with " + code);
                return null;
            }
            return summary.getNow("(no summary line from the " + protocol.id() + " client)");
        } finally {
            // SIGTERM: the server closes its endpoint and exits 0. (Process.destroy would also close our ends of the
            // child's pipes and lose its last lines; ProcessHandle.destroy only signals.)
            server.toHandle().destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
            if (serverErr != null) {
                serverErr.join(5_000);
            }
            if (!server.isAlive() && server.exitValue() != 0) {
                err.println("compare: server exited with " + server.exitValue());
            }
        }
    }

    private static void readServerOutput(InputStream in, CompletableFuture<String> ready, PrintStream err) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                int at = line.indexOf("listening=");
                if (!ready.isDone() && line.startsWith(ServerCommand.READY_PREFIX) && at > 0) {
                    ready.complete(line.substring(at + "listening=".length()).trim());
                } else {
                    err.println(line);
                }
            }
        } catch (IOException e) {
            // the server went away; the exit code tells
        } finally {
            ready.completeExceptionally(new IOException("server output ended"));
        }
    }

    private static Process start(List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).start();
    }

    private static Thread forward(InputStream in, OutputStream to, String name) {
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
                // child closed its end
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The same java, class path and JVM flags as this JVM (debug and agent flags left out). */
    static List<String> command(String subcommand, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!flag.startsWith("-agentlib") && !flag.startsWith("-javaagent") && !flag.startsWith("-Xrunjdwp")
                    && !flag.startsWith("-Xdebug")) {
                command.add(flag);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(io.homa4j.bench.Main.class.getName());
        command.add(subcommand);
        command.addAll(args);
        return command;
    }

    /** Short byte label for the title. */
    private static String bytesLabel(int n) {
        if (n % 1_000_000 == 0) {
            return n / 1_000_000 + " MB";
        }
        if (n % 1_000 == 0) {
            return n / 1_000 + " KB";
        }
        return n + " B";
    }
}
