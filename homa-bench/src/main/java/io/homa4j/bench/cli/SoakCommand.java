package io.homa4j.bench.cli;

import io.homa4j.bench.faults.FaultPlan;
import io.homa4j.bench.soak.LeakCounter;
import io.homa4j.bench.soak.SoakPlan;
import io.homa4j.bench.soak.SoakResult;
import io.homa4j.bench.soak.SoakRun;
import io.homa4j.bench.workload.Workload;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code soak}: mixed-size echo calls over loopback with random loss for a fixed time (see {@link SoakRun}); exits
 * 0 when no call was lost, none came back wrong or untyped, and Netty reported no leak.
 */
final class SoakCommand implements Command {
    @Override
    public String name() {
        return "soak";
    }

    @Override
    public String[] description() {
        return new String[] {"Echo calls under random loss for a fixed time; progress lines with memory; exit 1 on"
                + " a lost call or a leak."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.required("minutes", "M", "how long"),
                CliOption.value("loss", "P", "probability the client's filter drops a datagram, each way, 0 to 0.5"
                        + " (default 0.05)"),
                CliOption.value("concurrency", "N", "calls in flight (default 4)"),
                CliOption.workload(),
                CliOption.maxMessage(ClientCommand.DEFAULT_MAX_MESSAGE),
                CliOption.seed(),
                CliOption.value("progress-seconds", "S", "seconds between progress lines (default 10)"),
                CliOption.value("drain-seconds", "S", "seconds the last calls may take (default 30)"),
                CliOption.rttMicros(ClientCommand.DEFAULT_RTT_US),
                CliOption.handler(),
                CliOption.value("attack-rate", "N", "forged first packets of --max-message requests per second, a"
                        + " memory attack alongside the calls (default 0: none)"),
                CliOption.value("attack-ports", "N", "source ports the forged packets spread over (default 16)"));
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        LeakCounter.install(); // before the first buffer class loads, so leaks are counted
        SoakPlan plan = plan(args);
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

    static SoakPlan plan(Args args) throws UsageException {
        double minutes = args.doubleValue("minutes", null, 0, 10_080);
        double loss = fraction(args, "loss", 0.05, 0.5);
        int concurrency = args.intValue("concurrency", 4, 1, 10_000);
        int maxMessage = args.intValue("max-message", ClientCommand.DEFAULT_MAX_MESSAGE, 1, 64 << 20);
        Workload workload = ClientCommand.workload(args, maxMessage);
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        double progress = args.doubleValue("progress-seconds", 10.0, 0, 3_600);
        double drain = args.doubleValue("drain-seconds", 30.0, 0, 3_600);
        int rttUs = args.intValue("rtt-us", ClientCommand.DEFAULT_RTT_US, 1, 1_000_000);
        FaultPlan.Handler handler = FaultPlan.Handler.fromOption(args.string("handler", "echo"));
        if (handler == null) {
            throw new UsageException("soak: --handler is echo, never-reply or released-reply");
        }
        double attackRate = args.string("attack-rate", null) == null ? 0
                : args.doubleValue("attack-rate", null, 0, 100_000);
        int attackPorts = args.intValue("attack-ports", 16, 1, 1_024);
        return new SoakPlan(minutes * 60, loss, concurrency, workload, seed, progress, drain, rttUs, handler,
                attackRate, attackPorts);
    }

    /** A probability in [0, max]: unlike {@link Args#doubleValue}, 0 is allowed (no loss). */
    private static double fraction(Args args, String name, double defaultValue, double max) throws UsageException {
        String v = args.string(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (!(d >= 0 && d <= max)) {
                throw new UsageException("soak: --" + name + " must be in [0, " + max + "]: " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("soak: --" + name + " must be a number: " + v);
        }
    }
}
