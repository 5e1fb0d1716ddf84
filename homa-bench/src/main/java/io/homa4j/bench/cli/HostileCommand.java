package io.homa4j.bench.cli;

import io.homa4j.bench.hostile.HostilePeer;
import io.homa4j.bench.hostile.HostilePlan;
import io.homa4j.bench.hostile.HostileResult;
import io.homa4j.bench.hostile.HostileRun;
import io.homa4j.bench.soak.MemoryGauges;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code hostile}: an echo server attacked by a hostile peer over loopback while a real client calls it (see
 * {@link HostileRun}); prints the real calls' outcomes, drops by reason, the server's state high-water marks and
 * the JVM's memory. Exits 0 when every real call ended (none lost or wrong) and the caps held.
 */
final class HostileCommand implements Command {
    @Override
    public String name() {
        return "hostile";
    }

    @Override
    public String[] description() {
        return new String[] {"A spoofing and flooding peer against an echo server that a real client calls."};
    }

    @Override
    public List<CliOption> options() {
        return List.of(
                CliOption.value("seconds", "S", "how long (default 10)"),
                CliOption.value("rate", "N", "hostile datagrams per second (default 20000)"),
                CliOption.value("ports", "N", "source ports the hostile peer spreads over (default 256)"),
                CliOption.value("max-server-rpcs", "N", "the server's cap (default HomaConfig's)"),
                CliOption.value("max-buffered-total", "B", "the server's cap (default HomaConfig's)"),
                CliOption.value("max-buffered-per-peer", "B", "the server's cap (default HomaConfig's)"),
                CliOption.value("max-message", "B", "the server's longest message (default "
                        + ClientCommand.DEFAULT_MAX_MESSAGE + ")"),
                CliOption.value("flood-bytes", "B", "bytes of each flooding message (default 60000)"),
                CliOption.seed(),
                CliOption.value("attack", "mixed|memory|reflect", "memory: only first packets declaring"
                        + " --max-message; reflect: only 69-byte first packets (default mixed)"));
    }

    @Override
    public int run(Args args, PrintStream out, PrintStream err) throws Exception {
        HostilePlan plan = plan(args);
        HomaConfig c = plan.serverConfig();
        err.println(String.format(Locale.ROOT, "hostile: %.0f s at %d datagrams/s from %d ports; server caps:"
                        + " %d server RPCs, %d B buffered in total, %d B per peer, %d B per message",
                plan.seconds(), plan.packetsPerSecond(), plan.ports(), c.maxServerRpcs(), c.maxBufferedBytesTotal(),
                c.maxBufferedBytesPerPeer(), c.maxMessageBytes()));
        HostileResult r = HostileRun.run(plan);
        out.println(String.format(Locale.ROOT, "real calls: started %d  completed byte-exact %d  failed typed %s"
                        + "  mismatched %d  untyped %d  lost %d", r.realStarted(), r.realCompleted(), r.realFailed(),
                r.realMismatched(), r.realUntyped(), r.realLost()));
        out.println("attack datagrams sent: " + r.attackPacketsTotal() + " " + r.attackPackets() + ", "
                + r.attackBytesOnWire() + " B on the wire");
        out.println(String.format(Locale.ROOT, "reflected to the forged sources: %d datagrams, %d B on the wire:"
                        + " %.2f B per forged datagram, %.2fx its bytes", r.datagramsReflected(),
                r.bytesReflectedOnWire(), (double) r.bytesReflectedOnWire() / Math.max(1, r.attackPacketsTotal()),
                (double) r.bytesReflectedOnWire() / Math.max(1, r.attackBytesOnWire())));
        out.println(String.format(Locale.ROOT, "memory pinned per attacker byte: buffered high-water %d B / %d B"
                        + " sent = %.3f", r.server().bufferedBytesHighWater(), r.attackBytesOnWire(),
                (double) r.server().bufferedBytesHighWater() / Math.max(1, r.attackBytesOnWire())));
        out.println(String.format(Locale.ROOT, "calls ended vs started: %d of %d", r.realStarted() - r.realLost(),
                r.realStarted()));
        StringBuilder drops = new StringBuilder("server drops:");
        for (DropReason reason : DropReason.values()) {
            if (r.server().drops(reason) > 0) {
                drops.append(' ').append(reason).append('=').append(r.server().drops(reason));
            }
        }
        out.println(drops);
        out.println(String.format(Locale.ROOT, "server high-water: %d RPCs (cap %d), buffered %d B (cap %d)",
                r.serverRpcsHighWater(), c.maxServerRpcs(), r.server().bufferedBytesHighWater(),
                c.maxBufferedBytesTotal()));
        out.println(String.format(Locale.ROOT, "memory: heap %s before, %s high-water (live after GC %s);"
                        + " netty direct %s before, %s high-water", MemoryGauges.mb(r.heapBefore()),
                MemoryGauges.mb(r.heapHighWater()), MemoryGauges.mb(r.liveHeapHighWater()),
                MemoryGauges.mb(r.directBefore()), MemoryGauges.mb(r.directHighWater())));
        boolean held = r.serverRpcsHighWater() <= c.maxServerRpcs()
                && r.server().bufferedBytesHighWater() <= c.maxBufferedBytesTotal();
        boolean ended = r.realLost() == 0 && r.realMismatched() == 0 && r.realUntyped() == 0 && r.realCompleted() > 0;
        out.println("hostile: " + (held && ended ? "PASSED" : "FAILED"));
        return held && ended ? Cli.OK : Cli.FAILED;
    }

    static HostilePlan plan(Args args) throws UsageException {
        HomaConfig defaults = HomaConfig.defaults();
        double seconds = args.doubleValue("seconds", 10.0, 0, 86_400);
        int rate = args.intValue("rate", 20_000, 1, 10_000_000);
        int ports = args.intValue("ports", 256, 1, 10_000);
        int maxMessage = args.intValue("max-message", ClientCommand.DEFAULT_MAX_MESSAGE, 1, 1 << 30);
        HomaConfig server = HomaConfig.builder().maxMessageBytes(maxMessage)
                .maxServerRpcs(args.intValue("max-server-rpcs", defaults.maxServerRpcs(), 1, 10_000_000))
                .maxBufferedBytesTotal(args.longValue("max-buffered-total", defaults.maxBufferedBytesTotal(), 1,
                        Long.MAX_VALUE))
                .maxBufferedBytesPerPeer(args.longValue("max-buffered-per-peer", defaults.maxBufferedBytesPerPeer(),
                        1, Long.MAX_VALUE))
                .build();
        int floodBytes = args.intValue("flood-bytes", 60_000, 1, 1 << 30);
        long seed = args.longValue("seed", 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        String mode = args.string("attack", "mixed");
        List<HostilePeer.Attack> attacks;
        switch (mode) {
            case "mixed":
                attacks = HostilePeer.Attack.MIXED;
                break;
            case "memory":
                attacks = List.of(HostilePeer.Attack.HUGE_FIRST_PACKET);
                break;
            case "reflect":
                attacks = List.of(HostilePeer.Attack.TINY_FIRST_PACKET);
                break;
            default:
                throw new UsageException("hostile: --attack is mixed, memory or reflect, not " + mode);
        }
        return new HostilePlan(seconds, rate, ports, server, maxMessage, floodBytes, 2, 20_000, seed, attacks);
    }
}
