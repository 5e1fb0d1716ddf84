package io.homa4j.bench.cli;

import io.homa4j.bench.soak.LeakCounter;
import io.homa4j.bench.soak.SoakPlan;
import io.homa4j.bench.soak.SoakResult;
import io.homa4j.bench.soak.SoakRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code soak}: mixed-size echo calls over loopback with random loss for a fixed time (see {@link SoakRun}); exits
 * 0 when no call was lost, none came back wrong or untyped, and Netty reported no leak.
 */
@Command(name = "soak", sortOptions = false, description = "Echo calls under random loss for a fixed time;"
        + " progress lines with memory; exit 1 on a lost call or a leak.")
final class SoakCommand implements BenchCommand {
    @Mixin
    HelpOption help;

    @Bounds(min = 0, minExclusive = true, max = 10_080)
    @Option(names = "--minutes", required = true, paramLabel = "M", description = "how long")
    double minutes;

    @Bounds(min = 0, max = 0.5)
    @Option(names = "--loss", paramLabel = "P", description = "probability the client's filter drops a datagram,"
            + " each way, 0 to 0.5 (default 0.05)")
    double loss = 0.05;

    @Bounds(min = 1, max = 10_000)
    @Option(names = "--concurrency", paramLabel = "N", description = "calls in flight (default 4)")
    int concurrency = 4;

    @Mixin
    WorkloadOption workload;

    @Bounds(min = 1, max = 64 << 20)
    @Option(names = "--max-message", paramLabel = "B", description = "longest message; the workload is cut there"
            + " (default " + ClientOptions.DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = ClientOptions.DEFAULT_MAX_MESSAGE;

    @Mixin
    SeedOption seed;

    @Bounds(min = 0, minExclusive = true, max = 3_600)
    @Option(names = "--progress-seconds", paramLabel = "S", description = "seconds between progress lines (default"
            + " 10)")
    double progressSeconds = 10;

    @Bounds(min = 0, minExclusive = true, max = 3_600)
    @Option(names = "--drain-seconds", paramLabel = "S", description = "seconds the last calls may take (default 30)")
    double drainSeconds = 30;

    @Mixin
    RttOption rtt;

    @Mixin
    HandlerOption handler;

    @Bounds(min = 0, max = 100_000)
    @Option(names = "--attack-rate", paramLabel = "N", description = "forged first packets of --max-message requests"
            + " per second, a memory attack alongside the calls (default 0: none)")
    double attackRate;

    @Bounds(min = 1, max = 1_024)
    @Option(names = "--attack-ports", paramLabel = "N", description = "source ports the forged packets spread over"
            + " (default 16)")
    int attackPorts = 16;

    /** The soak these options describe. */
    SoakPlan plan() {
        return new SoakPlan(minutes * 60, loss, concurrency, workload.truncatedAt(maxMessage), seed.seed(),
                progressSeconds, drainSeconds, rtt.rttUs, handler.handler, attackRate, attackPorts);
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        LeakCounter.install(); // before the first buffer class loads, so leaks are counted
        SoakPlan plan = plan();
        SoakResult result = new SoakRun(plan, err).run();
        out.println(String.format(Locale.ROOT, "soak: started %d  completed byte-exact %d  failed typed %d %s"
                        + "  mismatched %d  untyped %d  lost %d  (%.0f calls/s)",
                result.started(), result.completed(), result.failed(), result.failedByCode(), result.mismatched(),
                result.untyped(), result.lost(), result.callsPerSecond()));
        out.println("calls ended vs started: " + result.ended() + " / " + result.started());
        if (result.attack() != null) {
            SoakResult.Attack a = result.attack();
            out.println(String.format(Locale.ROOT, "attack: %d forged packets (%d B on the wire), %d B reflected:"
                            + " %.2f B reflected per forged packet (%.2fx); server buffered high-water %d B (real"
                            + " calls included): at most %.2f B pinned per attacker byte",
                    a.forgedPackets(), a.forgedBytesOnWire(), a.reflectedBytes(), a.reflectedBytesPerPacket(),
                    a.forgedPackets() == 0 ? 0 : a.reflectedBytesPerPacket() * a.forgedPackets()
                            / a.forgedBytesOnWire(), a.bufferedHighWater(), a.pinnedPerAttackerByte()));
        }
        out.println(result.leaks() < 0 ? "leaks: not counted (a leak detector was set up before the soak started)"
                : "leaks: " + result.leaks() + " reported by Netty's leak detector");
        out.println(result.passed() ? "soak: PASSED" : "soak: FAILED");
        return result.passed() ? Cli.OK : Cli.FAILED;
    }
}
