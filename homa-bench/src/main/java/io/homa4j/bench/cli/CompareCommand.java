package io.homa4j.bench.cli;

import io.homa4j.bench.driver.LengthBuckets;
import io.homa4j.bench.rack.LinkRateCalibration;
import io.homa4j.bench.rack.RackLimits;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.workload.Workload;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * {@code compare}: the README's main job, Homa against TCP with the same workload, seed and load, in repeats
 * (the protocols' order alternating), then the merged table, the headline ratios (median and min-max over the
 * repeats), the plot and the results file ({@link CompareReport}).
 *
 * <p>Where: the emulated rack ({@link RackComparison}) when this process can build it, otherwise loopback
 * ({@link LoopbackComparison}), with one line saying why; {@code --where} chooses, and an option that only one
 * place takes chooses that place too. This class only turns the options into a {@link ComparePlan}.
 */
@Command(name = "compare", sortOptions = false, description = {"Homa vs TCP in repeats: the README's main job.",
        "In the emulated rack when this process can build it (root or a user namespace; ip, tc), else on loopback."
                + " Writes DIR/results.csv, DIR/rtt.svg, DIR/runs.csv, DIR/" + CompareReport.RESULTS_FILE + " and,"
                + " in the rack, DIR/slowdown.csv, and prints the tables. Repeat r uses seed S+r-1."})
final class CompareCommand implements BenchCommand {
    /**
     * The rack's link rate before the calibration picks one for this machine ({@link LinkRateCalibration}): what
     * the plan's rate-dependent defaults are first resolved at.
     */
    static final int RACK_LINK_MBPS = 50;
    /**
     * The hosts' NICs in the rack (see {@link ComparePlan.HostQueues}), owned by its command-line name: the help
     * needs a constant (picocli makes the rack-only group only when one of its options is given, so the help's
     * {@code ${DEFAULT-VALUE}} would show null).
     */
    private static final String RACK_HOST_QUEUES_NAME = "prio";
    static final ComparePlan.HostQueues RACK_HOST_QUEUES =
            ComparePlan.HostQueues.valueOf(RACK_HOST_QUEUES_NAME.toUpperCase(Locale.ROOT));
    static final int RACK_HOSTS = 4;
    static final double RACK_LOAD = 0.8;
    /**
     * The rack's JVMs start and compile on the same cores they measure on: the warm-up keeps C2's compiling of the
     * engine, which goes on for tens of seconds in a Homa JVM, out of the measured window.
     */
    static final double RACK_WARMUP_SECONDS = 45;
    /** Loopback has no link: the load is offered at {@code --load} of this rate. */
    static final int LOOPBACK_LINK_MBPS = 1_000;
    /** Low enough that a two-core machine offers it without Homa's client waiting for its outstanding cap. */
    static final double LOOPBACK_LOAD = 0.1;
    /** Homa paces at what loopback carries, not at a virtual link TCP would not be held to. */
    static final int LOOPBACK_HOMA_PACE_MBPS = 10_000;
    static final double LOOPBACK_WARMUP_SECONDS = 3;
    static final double LOOPBACK_DRAIN_SECONDS = 10;
    static final int DEFAULT_REPEATS = 3;
    /** The merged figure's largest bucket gets about this many calls per protocol (a margin over 500). */
    static final int LARGEST_BUCKET_CALLS = 550;
    static final double MIN_DURATION_SECONDS = 10;

    /** Where the comparison runs. */
    enum Where {
        /** The rack when this process can build it, else loopback. */
        AUTO,
        RACK,
        LOOPBACK;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How loopback runs each protocol's server and client. */
    enum Mode {
        /** A server JVM and a client JVM, as two hosts would. */
        CHILD,
        /** Both in this JVM: quicker to start. */
        IN_PROCESS;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** The options only the rack takes. */
    static final class RackOptions {
        @Bounds(min = 2, max = 64)
        @Option(names = "--hosts", paramLabel = "N", description = "rack only: hosts (default " + RACK_HOSTS + ")")
        int hosts = RACK_HOSTS;

        @Option(names = "--prefix", paramLabel = "homa-...",
                description = "rack only: prefix of the namespaces (default homa-cmp-PID)")
        String prefix;

        @Option(names = "--host-queues", paramLabel = "Q", description = "rack only: the hosts' NIC queues,"
                + " ${COMPLETION-CANDIDATES}: one FIFO, or strict-priority queues by DSCP as at the switch (default"
                + " " + RACK_HOST_QUEUES_NAME + ")")
        ComparePlan.HostQueues hostQueues = RACK_HOST_QUEUES;
    }

    /** The options only loopback takes. */
    static final class LoopbackOptions {
        @Option(names = "--mode", paramLabel = "MODE", description = "loopback only: ${COMPLETION-CANDIDATES}: a"
                + " server and a client JVM per protocol, or both in this JVM (default child)")
        Mode mode = Mode.CHILD;

        @Bounds(min = 1, max = 1_000_000)
        @Option(names = "--homa-link-mbps", paramLabel = "N",
                description = "loopback only: Homa's pacing rate (default " + LOOPBACK_HOMA_PACE_MBPS + ")")
        int homaLinkMbps = LOOPBACK_HOMA_PACE_MBPS;

        @Bounds(min = 0, max = 86_400)
        @Option(names = "--drain", paramLabel = "S", description = "loopback only: seconds the last calls may take"
                + " (default " + (int) LOOPBACK_DRAIN_SECONDS + ")")
        double drain = LOOPBACK_DRAIN_SECONDS;
    }

    /** The rack's options or loopback's, not both. */
    static final class PlaceOptions {
        @ArgGroup(exclusive = false)
        RackOptions rack;

        @ArgGroup(exclusive = false)
        LoopbackOptions loopback;
    }

    @Mixin
    HelpOption help;

    @Option(names = "--where", paramLabel = "WHERE", description = "${COMPLETION-CANDIDATES}; auto: the rack when it"
            + " can be built, unless a loopback-only option is given (default auto)")
    Where where = Where.AUTO;

    @Bounds(min = 1, max = 100)
    @Option(names = "--repeats", paramLabel = "N",
            description = "runs of every protocol, order alternating (default " + DEFAULT_REPEATS + ")")
    int repeats = DEFAULT_REPEATS;

    @Mixin
    WorkloadOption workload;

    @Bounds(min = 0, minExclusive = true, max = 10)
    @Option(names = "--load", paramLabel = "L", description = "offered load as a fraction of --link-mbps (default "
            + RACK_LOAD + " in the rack, " + LOOPBACK_LOAD + " on loopback)")
    Double load;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--link-mbps", paramLabel = "N", description = "link rate (default: in the rack the highest of"
            + " 100/50/25/10 at which the machine stays under 50%% busy, by a short calibration; " + LOOPBACK_LINK_MBPS
            + " on loopback)")
    Integer linkMbps;

    @Bounds(min = 0, minExclusive = true, max = 86_400)
    @Option(names = "--duration", paramLabel = "S", description = "measured seconds per protocol and repeat (default:"
            + " enough for " + LARGEST_BUCKET_CALLS + " calls in the largest bucket, at least "
            + (int) MIN_DURATION_SECONDS + ")")
    Double duration;

    @Bounds(min = 0, max = 86_400)
    @Option(names = "--warmup", paramLabel = "S", description = "seconds before measuring (default "
            + (int) RACK_WARMUP_SECONDS + " in the rack, " + (int) LOOPBACK_WARMUP_SECONDS + " on loopback)")
    Double warmup;

    @Bounds(min = 1, max = Integer.MAX_VALUE - 8)
    @Option(names = "--max-message", paramLabel = "B", description = "longest message; the workload is cut there"
            + " (default " + ClientOptions.DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = ClientOptions.DEFAULT_MAX_MESSAGE;

    @Option(names = "--out", paramLabel = "DIR", description = "output directory (default results/compare)")
    Path out = Path.of("results", "compare");

    @Option(names = "--protocols", split = ",", paramLabel = "PROTOCOL",
            description = "which protocols, in this order: ${COMPLETION-CANDIDATES} (default homa,tcp)")
    List<Protocol> protocols = List.of(Protocol.HOMA, Protocol.TCP);

    @Mixin
    SeedOption seed;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--max-outstanding", paramLabel = "N", description = "calls in flight per client (default "
            + ClientOptions.DEFAULT_MAX_OUTSTANDING + ")")
    int maxOutstanding = ClientOptions.DEFAULT_MAX_OUTSTANDING;

    @Bounds(min = 1, max = 1_024)
    @Option(names = "--tcp-connections", paramLabel = "N", description = "TCP connections per server (default "
            + io.homa4j.bench.transport.TransportOptions.DEFAULT_TCP_CONNECTIONS + ")")
    int tcpConnections = io.homa4j.bench.transport.TransportOptions.DEFAULT_TCP_CONNECTIONS;

    @Bounds(min = 1, max = 1_000_000)
    @Option(names = "--rtt-us", paramLabel = "N", description = "Homa's unloaded round trip, microseconds (default:"
            + " the rack measures it; loopback " + RttOption.DEFAULT_RTT_US + ")")
    Integer rttUs;

    @ArgGroup(exclusive = true)
    PlaceOptions place;

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        boolean rackOnly = place != null && place.rack != null;
        boolean loopbackOnly = place != null && place.loopback != null;
        boolean rack;
        if (where == Where.LOOPBACK || where == Where.AUTO && loopbackOnly) {
            rack = false;
        } else {
            String reason = Rack.unavailableReason();
            if (reason != null && (where == Where.RACK || rackOnly)) {
                err.println("compare: cannot run the emulated rack here: " + reason);
                return Cli.FAILED;
            }
            rack = reason == null;
            if (!rack) {
                out.println("compare: the emulated rack cannot run here (" + reason + "); running on loopback"
                        + " instead, where Homa's priorities have no switch queue to act on");
            }
        }
        if (rack ? loopbackOnly : rackOnly) {
            throw new UsageException("compare: " + (rack ? "the options of loopback" : "the options of the"
                    + " emulated rack") + " do not apply " + (rack ? "in the rack" : "on loopback") + " (see --where)");
        }
        ComparePlan plan = plan(rack);
        if (!rack) {
            return new LoopbackComparison(plan).run(out, err);
        }
        String refusal = RackLimits.hostsRefusal(plan.rack().hosts(), RackLimits.availableMemoryBytes());
        if (refusal != null) {
            throw new UsageException("compare: " + refusal);
        }
        if (Rack.rootlessHere()) {
            out.println("compare: not root: the rack runs rootless, in a user namespace that owns its network"
                    + " namespaces (no real-time priority for the load generators there)");
        }
        IntFunction<ComparePlan> atRate = rate -> {
            try {
                return plan(true, rate);
            } catch (UsageException e) {
                throw new IllegalStateException("the options were checked at the first rate: " + e.getMessage(), e);
            }
        };
        return new RackComparison(plan, atRate, linkMbps == null).run(out, err);
    }

    /** The plan of these options in the rack or on loopback, every default resolved. */
    ComparePlan plan(boolean rack) throws UsageException {
        return plan(rack, linkMbps);
    }

    /** As {@link #plan(boolean)}, at {@code linkMbps} (null: the place's default). */
    ComparePlan plan(boolean rack, Integer linkMbps) throws UsageException {
        if (new HashSet<>(protocols).size() != protocols.size()) {
            throw new UsageException("compare: --protocols names a protocol twice: " + protocols);
        }
        Workload cut = workload.truncatedAt(maxMessage);
        RackOptions rackOptions = place != null && place.rack != null ? place.rack : new RackOptions();
        LoopbackOptions loopbackOptions = place != null && place.loopback != null ? place.loopback
                : new LoopbackOptions();
        ComparePlan.RackSetup rackSetup = null;
        ComparePlan.LoopbackSetup loopbackSetup = null;
        if (rack) {
            String prefix = rackOptions.prefix != null ? rackOptions.prefix : "homa-cmp-" + ProcessHandle.current().pid();
            if (!prefix.matches("homa-[a-z0-9-]+")) {
                throw new UsageException("compare: --prefix must start with 'homa-' (lowercase, digits, '-'): "
                        + prefix);
            }
            rackSetup = new ComparePlan.RackSetup(rackOptions.hosts, prefix, rackOptions.hostQueues);
        } else {
            loopbackSetup = new ComparePlan.LoopbackSetup(loopbackOptions.mode, loopbackOptions.homaLinkMbps,
                    loopbackOptions.drain);
        }
        double load = this.load != null ? this.load : rack ? RACK_LOAD : LOOPBACK_LOAD;
        int rate = linkMbps != null ? linkMbps : rack ? RACK_LINK_MBPS : LOOPBACK_LINK_MBPS;
        double warmup = this.warmup != null ? this.warmup : rack ? RACK_WARMUP_SECONDS : LOOPBACK_WARMUP_SECONDS;
        Integer rtt = rttUs != null || rack ? rttUs : Integer.valueOf(RttOption.DEFAULT_RTT_US);
        ComparePlan draft = new ComparePlan(protocols, cut, maxMessage, load, rate, 0, warmup, seed.seed(),
                maxOutstanding, tcpConnections, rtt, repeats, out, rackSetup, loopbackSetup);
        double duration = this.duration != null ? this.duration : autoDuration(cut, draft.requestMbps(), repeats);
        return new ComparePlan(protocols, cut, maxMessage, load, rate, duration, warmup, seed.seed(),
                maxOutstanding, tcpConnections, rtt, repeats, out, rackSetup, loopbackSetup);
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
}
