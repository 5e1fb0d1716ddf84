package io.homa4j.bench.cli;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.RttPlot;
import io.homa4j.bench.report.RunsCsv;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * {@code compare}: the README's main job, Homa against TCP with the same workload, seed and load, in repeats
 * (Homa/TCP pairs, the order alternating), then the merged table, the headline ratios (median and min-max over the
 * repeats) and the plot.
 *
 * <p>Where: the emulated rack ({@link Rack}: one host per network namespace, a switch with priority queues, links
 * at {@code --link-mbps}) when this process can build it, otherwise loopback, with one line saying why;
 * {@code --where rack|loopback} chooses. On loopback there is no link: the load is offered at
 * {@code --load x --link-mbps}, and Homa paces at what loopback carries ({@code --homa-link-mbps}), not at a
 * virtual link TCP would not be held to. Mode {@code child} (default, loopback) runs a server JVM and a client JVM
 * per protocol, as two hosts would; {@code in-process} runs both in this JVM (quicker; the tests use it).
 *
 * <p>Longer than 400 lines: the where, mode and repeat choices above, each with its own way to start and stop the
 * two protocols, and the one report they feed; the measuring itself is in the bench's driver packages.
 */
final class CompareCommand implements Command {
    /**
     * The rack's link rate: as high as the data path allows while the rack's machine stays below about 70% busy.
     * On 2026-12-06 (the README's command with {@code --link-mbps}, 3 repeats each) 50 Mbit/s kept it 48-51% busy
     * during Homa's repeats and 100 Mbit/s 68-77%, where the largest bucket's ratio fell below par (0.83x);
     * docs/results.md has the runs.
     */
    static final int RACK_LINK_MBPS = 50;
    static final int RACK_HOSTS = 4;
    /**
     * The four JVMs start and compile on two cores: keep that out of the measured window. With 8 s, C2 was still
     * compiling for most of it: a Homa JVM spends about 11.5 s compiling in a repeat (TCP's about 3.9 s;
     * {@code -XX:+CITime}, 2026-12-05), and its C2 threads took 85% of a core at 14-19 s of JVM age and 18% at
     * 24-29 s, which the event loops' wake-ups then queue behind (docs/results.md, 2026-12-05 afternoon). With
     * 20 s, C2 still recompiled the engine's hottest methods 20-50 s into a JVM's life, each time a rare branch was
     * first taken (compare.sh's {@code -XX:PerMethodTrapLimit=0} removes most of that); Homa-only rack runs gave
     * short-message P99 27.6-31.4 ms with 45 s against 29.2-44.6 ms (median 39.4) with 20 s (docs/results.md,
     * 2026-12-05 evening).
     */
    static final double RACK_WARMUP_SECONDS = 45;
    /**
     * Loopback: the offered load is {@code --load} of this; Homa's pacing rate on loopback is
     * {@link #LOOPBACK_HOMA_PACE_MBPS}. Both measured on the team's two-core machine, docs/benchmarks.md: at 0.2
     * (200 Mbit/s) Homa's client waited for the outstanding cap for 1.5-4.1% of its calls in two of three repeats
     * (OVERLOADED; 2026-12-03 13:45 UTC), at 0.1 for none.
     */
    static final int DEFAULT_LINK_MBPS = 1_000;
    static final double LOOPBACK_LOAD = 0.1;
    static final int LOOPBACK_HOMA_PACE_MBPS = 10_000;
    static final double LOOPBACK_WARMUP_SECONDS = 3;
    static final double RACK_LOAD = 0.8;
    static final int DEFAULT_REPEATS = 3;
    /** The merged figure's largest bucket gets about this many calls per protocol (a margin over 500). */
    static final int LARGEST_BUCKET_CALLS = 550;
    static final double MIN_DURATION_SECONDS = 10;
    static final String DEFAULT_OUT = "results/compare";
    private static final long SERVER_START_TIMEOUT_SECONDS = 30;
    private static final Set<String> LOOPBACK_ONLY = Set.of("mode", "homa-link-mbps", "drain");
    private static final Set<String> RACK_ONLY = Set.of("hosts", "prefix");

    /** Everything both places share, checked. */
    private record Plan(boolean rack, String workloadSpec, Workload workload, int maxMessage, double load,
                        int linkMbps, double duration, double warmup, long seed, int maxOutstanding, int connections,
                        List<Protocol> protocols, int repeats, Path outDir) {
        /** Homa first in odd repeats, TCP first in even ones, so neither always runs on the fresher machine. */
        List<Protocol> order(int repeat) {
            List<Protocol> order = new ArrayList<>(protocols);
            if (repeat % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            return order;
        }
    }

    @Override
    public String name() {
        return "compare";
    }

    @Override
    public String[] description() {
        return new String[] {"Homa vs TCP in repeats: the README's main job.",
                "In the emulated rack when this process can build it (root, ip, tc), else on loopback. Writes"
                        + " DIR/results.csv, DIR/rtt.svg and DIR/runs.csv and prints the table."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.value("where", "auto|rack|loopback", "auto: the rack when it can be built (default auto)"),
                CliOption.value("repeats", "N", "Homa/TCP pairs, order alternating (default " + DEFAULT_REPEATS
                        + ")"),
                CliOption.workload(),
                CliOption.value("load", "L", "offered load as a fraction of --link-mbps (default " + RACK_LOAD
                        + " in the rack, " + LOOPBACK_LOAD + " on loopback)"),
                CliOption.value("link-mbps", "N", "link rate (default " + RACK_LINK_MBPS + " in the rack, "
                        + DEFAULT_LINK_MBPS + " on loopback)"),
                CliOption.value("duration", "S", "measured seconds per protocol and repeat (default: enough for "
                        + LARGEST_BUCKET_CALLS + " calls in the largest bucket, at least " + (int) MIN_DURATION_SECONDS
                        + ")"),
                CliOption.value("warmup", "S", "seconds before measuring (default " + (int) RACK_WARMUP_SECONDS
                        + " in the rack, " + (int) LOOPBACK_WARMUP_SECONDS + " on loopback)"),
                CliOption.maxMessage(ClientCommand.DEFAULT_MAX_MESSAGE),
                CliOption.value("out", "DIR", "output directory (default " + DEFAULT_OUT + ")"),
                CliOption.value("protocols", "homa,tcp", "which protocols, in this order (default homa,tcp)"),
                CliOption.value("seed", "S", "random seed of the first repeat; repeat r uses S+r-1 (default 1)"),
                CliOption.value("max-outstanding", "N", "calls in flight per client (default "
                        + ClientCommand.DEFAULT_MAX_OUTSTANDING + ")"),
                CliOption.value("tcp-connections", "N", "TCP connections per server (default "
                        + TransportOptions.DEFAULT_TCP_CONNECTIONS + ")"),
                CliOption.value("rtt-us", "N", "Homa's unloaded round trip, microseconds (default: the rack"
                        + " measures it; loopback " + ClientCommand.DEFAULT_RTT_US + ")"),
                CliOption.value("hosts", "N", "rack only: hosts (default " + RACK_HOSTS + ")"),
                CliOption.value("prefix", "homa-...", "rack only: prefix of the namespaces (default"
                        + " homa-cmp-PID)"),
                CliOption.value("mode", "child|in-process", "loopback only: a server and a client JVM per"
                        + " protocol, or both in this JVM (default child)"),
                CliOption.value("homa-link-mbps", "N", "loopback only: Homa's pacing rate (default "
                        + LOOPBACK_HOMA_PACE_MBPS + ")"),
                CliOption.value("drain", "S", "loopback only: seconds the last calls may take (default 10)"));
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        String where = args.string("where", "auto");
        if (!Set.of("auto", "rack", "loopback").contains(where)) {
            throw new UsageException("compare: --where must be auto, rack or loopback: " + where);
        }
        plan(args, false); // every shared option's value is checked before anything is started
        String mode = args.string("mode", "child");
        if (!mode.equals("child") && !mode.equals("in-process")) {
            throw new UsageException("compare: --mode must be child or in-process: " + mode);
        }
        boolean rack;
        if (where.equals("loopback")) {
            rack = false;
        } else {
            String reason = Rack.unavailableReason();
            if (reason != null && where.equals("rack")) {
                err.println("compare: cannot run the emulated rack here: " + reason);
                return Cli.FAILED;
            }
            rack = reason == null;
            if (!rack) {
                out.println("compare: the emulated rack cannot run here (" + reason + "); running on loopback"
                        + " instead, where Homa's priorities have no switch queue to act on");
            }
        }
        for (String name : rack ? LOOPBACK_ONLY : RACK_ONLY) {
            if (args.has(name)) {
                throw new UsageException("compare: --" + name + " applies " + (rack ? "on loopback only"
                        : "in the emulated rack only") + " (this run is " + (rack ? "in the rack" : "on loopback")
                        + "; see --where)");
            }
        }
        Plan plan = plan(args, rack);
        return rack ? runRack(plan, args, out, err) : runLoopback(plan, args, out, err);
    }

    private static Plan plan(Args args, boolean rack) throws UsageException {
        int maxMessage = args.intValue("max-message", ClientCommand.DEFAULT_MAX_MESSAGE, 1, Integer.MAX_VALUE - 8);
        String workloadSpec = args.string("workload", "w4");
        Workload workload = ClientCommand.workload(args, maxMessage);
        double load = args.doubleValue("load", rack ? RACK_LOAD : LOOPBACK_LOAD, 0, 10);
        int linkMbps = args.intValue("link-mbps", rack ? RACK_LINK_MBPS : DEFAULT_LINK_MBPS, 1, 1_000_000);
        int repeats = args.intValue("repeats", DEFAULT_REPEATS, 1, 100);
        double warmup = args.has("warmup") ? args.doubleValue("warmup", null, -1e-9, 86_400)
                : rack ? RACK_WARMUP_SECONDS : LOOPBACK_WARMUP_SECONDS;
        int hosts = rack ? args.intValue("hosts", RACK_HOSTS, 2, 64) : 1;
        // requests per second of all clients: all-to-all echo in the rack offers load x link / 2 per client
        double requestMbps = rack ? load * linkMbps / 2 * hosts : load * linkMbps;
        double duration = args.has("duration") ? args.doubleValue("duration", null, 0, 86_400)
                : autoDuration(workload, requestMbps, repeats);
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        int maxOutstanding = args.intValue("max-outstanding", ClientCommand.DEFAULT_MAX_OUTSTANDING, 1, 1_000_000);
        int connections = args.intValue("tcp-connections", TransportOptions.DEFAULT_TCP_CONNECTIONS, 1, 1_024);
        Path outDir = Path.of(args.string("out", DEFAULT_OUT));
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
        return new Plan(rack, workloadSpec, workload, maxMessage, load, linkMbps, duration, warmup, seed,
                maxOutstanding, connections, protocols, repeats, outDir);
    }

    /**
     * Measured seconds per protocol and repeat such that the figure's largest length bucket, all repeats merged,
     * holds about {@link #LARGEST_BUCKET_CALLS} calls per protocol (a P99 from at least 500 calls), and at least
     * {@link #MIN_DURATION_SECONDS}.
     */
    static double autoDuration(Workload workload, double requestMbps, int repeats) {
        int[] bounds = LengthBuckets.forWorkload(workload).upperBounds();
        double share = bounds.length < 2 ? 1 : 1 - workload.cumulativeFraction(bounds[bounds.length - 2]);
        double callsPerSecond = requestMbps * 1e6 / (8 * workload.meanBytes()) * share;
        double seconds = Math.ceil(LARGEST_BUCKET_CALLS / (repeats * callsPerSecond));
        return Math.min(3_600, Math.max(MIN_DURATION_SECONDS, seconds));
    }

    /** The figure's title: workload, load, link or loopback, repeats; second line date, commit and load average. */
    private static String title(Plan plan, String place, String loadAverage) {
        String max = plan.maxMessage() < Integer.MAX_VALUE ? " (max " + RttPlot.lengthLabel(plan.maxMessage()) + ")"
                : "";
        int[] bounds = LengthBuckets.forWorkload(plan.workload()).upperBounds();
        String largest = bounds.length < 2 ? "" : String.format(Locale.ROOT, " \u00b7 largest bucket %s-%s (%.0f%% of"
                        + " messages)", RttPlot.lengthLabel(bounds[bounds.length - 2] + 1),
                RttPlot.lengthLabel(bounds[bounds.length - 1]),
                100 * (1 - plan.workload().cumulativeFraction(bounds[bounds.length - 2])));
        return String.format(Locale.ROOT, "%s%s at %.0f%% load, %s: Homa vs TCP\n%d repeat%s of %s s per protocol"
                        + " (merged)%s \u00b7 %s \u00b7 commit %s \u00b7 load average %s",
                plan.workload().name().toUpperCase(Locale.ROOT), max, plan.load() * 100, place, plan.repeats(),
                plan.repeats() == 1 ? "" : "s", trim(plan.duration()), largest,
                Provenance.minute(java.time.Instant.now()), Provenance.commit(), loadAverage);
    }

    private int runRack(Plan plan, Args args, PrintStream out, PrintStream err) throws Exception {
        int hosts = args.intValue("hosts", RACK_HOSTS, 2, 64);
        String rtt = args.has("rtt-us") ? Integer.toString(args.intValue("rtt-us", null, 1, 1_000_000)) : "auto";
        String prefix = args.string("prefix", "homa-cmp-" + ProcessHandle.current().pid());
        if (!prefix.matches("homa-[a-z0-9-]+")) {
            throw new UsageException("compare: --prefix must start with 'homa-' (lowercase, digits, '-'): " + prefix);
        }
        double perProtocol = 12 + plan.warmup() + plan.duration();
        out.println(String.format(Locale.ROOT, "compare: emulated rack (%s-*): %d hosts, %d Mbit/s links, %s at"
                        + " load %.2f, %d repeats x %s s + %s s warm-up per protocol; about %.0f min in all; out %s",
                prefix, hosts, plan.linkMbps(), plan.workload(), plan.load(), plan.repeats(), trim(plan.duration()),
                trim(plan.warmup()), Math.ceil((perProtocol * plan.protocols().size() + 5) * plan.repeats() / 60),
                plan.outDir()));
        out.flush();
        String loadAverage = Provenance.loadAverage();
        Figure figure = new Figure();
        List<String> cpuLines = new ArrayList<>();
        long started = System.nanoTime();
        try (Rack rack = Rack.open(prefix)) {
            for (int r = 1; r <= plan.repeats(); r++) {
                List<Protocol> order = plan.order(r);
                Path dir = plan.outDir().resolve("repeat-" + r);
                List<String> shArgs = new ArrayList<>(List.of("--hosts", Integer.toString(hosts),
                        "--link-mbps", Integer.toString(plan.linkMbps()), "--workload", plan.workloadSpec(),
                        "--max-message", Integer.toString(plan.maxMessage()), "--load", Double.toString(plan.load()),
                        "--duration", trim(plan.duration()), "--warmup", trim(plan.warmup()), "--rtt-us", rtt,
                        "--seed", Long.toString(plan.seed() + r - 1), "--max-outstanding",
                        Integer.toString(plan.maxOutstanding()), "--tcp-connections",
                        Integer.toString(plan.connections()), "--out", dir.toString(), "--protocols",
                        String.join(",", order.stream().map(Protocol::id).toList())));
                int repeat = r;
                int code = rack.compare(shArgs, dir.resolve("compare.log"), line -> {
                    Matcher m = RACK_PROGRESS.matcher(line);
                    if (m.find()) {
                        out.println(String.format(Locale.ROOT, "compare: repeat %d/%d: %s running (%s s + %s s"
                                        + " warm-up; %.0f s since the start)", repeat, plan.repeats(), m.group(1),
                                trim(plan.duration()), trim(plan.warmup()), (System.nanoTime() - started) / 1e9));
                        out.flush();
                    } else if (line.contains("WARNING") || line.contains("exited with") || line.contains("still running")
                            || line.contains("not serving") || line.contains("JVM in")) {
                        err.println(line);
                    }
                });
                if (code != 0) {
                    err.println("compare: the rack run of repeat " + r + " failed (exit " + code + "); the end of "
                            + dir.resolve("compare.log") + ":");
                    tail(dir.resolve("compare.log"), 15).forEach(err::println);
                    return Cli.FAILED;
                }
                ResultSet repeatResults = new ResultSet();
                for (Protocol protocol : order) {
                    List<RunStats> clients = new ArrayList<>();
                    try (java.util.stream.Stream<Path> nodes = Files.list(dir.resolve(protocol.id()))) {
                        for (Path client : nodes.filter(p -> p.getFileName().toString().startsWith("client-"))
                                .sorted().toList()) {
                            repeatResults.addAll(HistogramsCsv.read(client.resolve(HistogramsCsv.FILE_NAME)));
                            RunsCsv.readIfPresent(client).forEach(run -> clients.add(run.stats()));
                            figure.workload = plan.workload().toString();
                        }
                    }
                    figure.add(r, protocol, clients);
                }
                figure.addRepeat(repeatResults);
                cpuLines.addAll(rackCpu(r, dir.resolve("cpu.csv")));
                cpuLines.addAll(rackLosses(r, dir.resolve("losses.csv")));
            }
        }
        String place = String.format(Locale.ROOT, "emulated rack, %d hosts, %d Mbit/s links", hosts, plan.linkMbps());
        return finish(plan, figure, title(plan, place, loadAverage), loadAverage, cpuLines, out);
    }

    private static final java.util.regex.Pattern RACK_PROGRESS =
            java.util.regex.Pattern.compile("compare\\.sh: (homa|tcp): \\d+ hosts serving");

    /** "repeat 1: homa: machine 41% busy (rack JVMs 20%, softirq 9%, outside the rack 3%)" per protocol. */
    private static List<String> rackCpu(int repeat, Path cpuCsv) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(cpuCsv)) {
            return lines;
        }
        for (String line : Files.readAllLines(cpuCsv).subList(1, Files.readAllLines(cpuCsv).size())) {
            String[] c = line.split(",");
            if (c.length >= 9) {
                lines.add(String.format(Locale.ROOT, "repeat %d: %s: machine %s%% busy (rack JVMs %s%%, softirq %s%%,"
                        + " outside the rack %s%%)%s", repeat, c[0], c[1], c[7], c[4], c[8],
                        Integer.parseInt(c[1]) > RACK_CPU_LIMIT_PCT ? " ABOVE " + RACK_CPU_LIMIT_PCT
                                + "%: the CPU, not the link, may be what the rack measures" : ""));
            }
        }
        return lines;
    }

    /**
     * "repeat 1: homa: switch dropped 0 packets, hosts' egress queues 0, UDP receive buffers 0; Homa sent 129 of
     * 228,753 DATA packets again (0.056%)" per protocol, from compare.sh's {@code losses.csv}; none when the file
     * is missing. A retransmission with nothing dropped anywhere answered a packet that was only late.
     */
    static List<String> rackLosses(int repeat, Path lossesCsv) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.exists(lossesCsv)) {
            return lines;
        }
        List<String> rows = Files.readAllLines(lossesCsv);
        for (String row : rows.subList(Math.min(1, rows.size()), rows.size())) {
            String[] c = row.split(",", -1);
            if (c.length < 6) {
                continue;
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "repeat %d: %s: switch dropped %,d packets, hosts' egress queues %,d, UDP receive buffers %,d",
                    repeat, c[0], Long.parseLong(c[1]), Long.parseLong(c[2]), Long.parseLong(c[3])));
            if (!c[4].isEmpty() && !c[5].isEmpty()) {
                long data = Long.parseLong(c[4]);
                long resent = Long.parseLong(c[5]);
                line.append(String.format(Locale.ROOT, "; Homa sent %,d of %,d DATA packets again (%.3f%%)", resent,
                        data, data > 0 ? 100.0 * resent / data : 0));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** Above this share of the machine busy, the rack's hosts compete for CPU more than for the link. */
    static final int RACK_CPU_LIMIT_PCT = 70;

    private static List<String> tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return all.subList(Math.max(0, all.size() - lines), all.size());
        } catch (IOException e) {
            return List.of("(no log: " + e.getMessage() + ")");
        }
    }

    private int runLoopback(Plan plan, Args args, PrintStream out, PrintStream err) throws Exception {
        int homaLinkMbps = args.intValue("homa-link-mbps", LOOPBACK_HOMA_PACE_MBPS, 1, 1_000_000);
        int rttUs = args.intValue("rtt-us", ClientCommand.DEFAULT_RTT_US, 1, 1_000_000);
        double drain = args.has("drain") ? args.doubleValue("drain", null, -1e-9, 86_400) : 10;
        String mode = args.string("mode", "child");
        double loadMbps = plan.load() * plan.linkMbps();
        double perProtocol = 2 + plan.warmup() + plan.duration();
        out.println(String.format(Locale.ROOT, "compare: loopback: %s, offered %.0f Mbit/s (%.0f%% of %d), Homa"
                        + " paced at %d Mbit/s, %d repeats x %s s + %s s warm-up per protocol (about %.0f s), mode"
                        + " %s, out %s", plan.workload(), loadMbps, plan.load() * 100, plan.linkMbps(), homaLinkMbps,
                plan.repeats(), trim(plan.duration()), trim(plan.warmup()),
                perProtocol * plan.protocols().size() * plan.repeats(), mode, plan.outDir()));
        String loadAverage = Provenance.loadAverage();
        Figure figure = new Figure();
        figure.workload = plan.workload().toString();
        for (int r = 1; r <= plan.repeats(); r++) {
            ResultSet repeatResults = new ResultSet();
            List<Protocol> order = plan.order(r);
            for (int i = 0; i < order.size(); i++) {
                Protocol protocol = order.get(i);
                Path dir = plan.outDir().resolve("repeat-" + r).resolve(protocol.id());
                int protocolLink = protocol == Protocol.HOMA ? homaLinkMbps : plan.linkMbps();
                List<String> clientArgs = new ArrayList<>(List.of("--protocol", protocol.id(),
                        "--workload", plan.workloadSpec(), "--load-mbps", Double.toString(loadMbps),
                        "--duration", Double.toString(plan.duration()), "--warmup", Double.toString(plan.warmup()),
                        "--drain", Double.toString(drain), "--max-message", Integer.toString(plan.maxMessage()),
                        "--out", dir.toString(), "--link-mbps", Integer.toString(protocolLink),
                        "--rtt-us", Integer.toString(rttUs), "--max-outstanding",
                        Integer.toString(plan.maxOutstanding()), "--seed", Long.toString(plan.seed() + r - 1),
                        "--tcp-connections", Integer.toString(plan.connections())));
                List<String> serverArgs = List.of("--protocol", protocol.id(), "--port", "0", "--bind", "127.0.0.1",
                        "--link-mbps", Integer.toString(protocolLink), "--rtt-us", Integer.toString(rttUs),
                        "--max-message", Integer.toString(plan.maxMessage()));
                out.println(String.format(Locale.ROOT, "compare: repeat %d/%d: %s", r, plan.repeats(),
                        protocol.id()));
                out.flush();
                String summary = mode.equals("child")
                        ? runChildren(protocol, serverArgs, clientArgs, out, err)
                        : runInProcess(protocol, serverArgs, clientArgs, out, err);
                if (summary == null) {
                    err.println("compare: the " + protocol.id() + " run failed; see above");
                    return Cli.FAILED;
                }
                repeatResults.addAll(HistogramsCsv.read(dir.resolve(HistogramsCsv.FILE_NAME)));
                figure.add(r, protocol, RunsCsv.readIfPresent(dir).stream().map(RunsCsv.ClientRun::stats).toList());
            }
            figure.addRepeat(repeatResults);
        }
        String place = String.format(Locale.ROOT, "loopback, %.0f Mbit/s offered, Homa paced at %,d Mbit/s",
                loadMbps, homaLinkMbps);
        return finish(plan, figure, title(plan, place, loadAverage), loadAverage, List.of(), out);
    }

    /** The runs of all repeats, combined per protocol and repeat, and each repeat's and all calls' results. */
    private static final class Figure {
        final ResultSet merged = new ResultSet();
        final List<ResultSet> repeats = new ArrayList<>();
        final List<RunsCsv.ClientRun> runs = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        String workload = "";

        void add(int repeat, Protocol protocol, List<RunStats> clients) {
            if (!clients.isEmpty()) {
                runs.add(new RunsCsv.ClientRun(workload, java.time.Instant.now(), Provenance.commit(),
                        RunStats.combine(protocol.id(), clients)));
                labels.add("repeat " + repeat + (clients.size() > 1 ? " (" + clients.size() + " clients)" : ""));
            }
        }

        void addRepeat(ResultSet results) {
            repeats.add(results);
            results.rows().forEach(row -> merged.add(row.protocol(), row.bucketMaxBytes(), row.histogram()));
        }
    }

    private static int finish(Plan plan, Figure figure, String title, String loadAverage, List<String> cpuLines,
                              PrintStream out) throws IOException {
        out.println();
        List<String> notes = new ArrayList<>(MergeCommand.failureNotes(figure.runs));
        MergeCommand.write(new MergeCommand.Figure(figure.merged, figure.runs, figure.repeats), plan.outDir(),
                title, notes, out);
        for (int i = 0; i < figure.runs.size(); i++) {
            out.println(figure.labels.get(i) + " " + figure.runs.get(i).stats().summaryLine());
        }
        cpuLines.forEach(out::println);
        out.println("load average before / after: " + loadAverage + " / " + Provenance.loadAverage() + "; commit "
                + Provenance.commit());
        return Cli.OK;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
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
            ClientCommand.Plan plan = ClientCommand.plan(Cli.parse(new ClientCommand(), args.toArray(new String[0])));
            RunStats stats = ClientCommand.execute(plan, out, err);
            if (!server.statistics().isEmpty()) {
                err.println(server.statistics());
            }
            return ClientCommand.succeeded(stats, err) ? stats.summaryLine() : null;
        }
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
}
