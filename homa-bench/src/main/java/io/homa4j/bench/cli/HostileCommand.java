package io.homa4j.bench.cli;

import io.homa4j.bench.hostile.HostilePeer;
import io.homa4j.bench.hostile.HostilePlan;
import io.homa4j.bench.hostile.HostileResult;
import io.homa4j.bench.hostile.HostileRun;
import io.homa4j.bench.soak.MemoryGauges;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code hostile}: an echo server attacked by a hostile peer over loopback while a real client calls it (see
 * {@link HostileRun}); prints the real calls' outcomes, drops by reason, the server's state high-water marks and
 * the JVM's memory. Exits 0 when every real call ended (none lost or wrong) and the caps held.
 */
@Command(name = "hostile", sortOptions = false,
        description = "A spoofing and flooding peer against an echo server that a real client calls.")
final class HostileCommand implements BenchCommand {
    /** Which hostile packets the peer sends. */
    enum Attack {
        /** Every kind of hostile packet. */
        MIXED(HostilePeer.Attack.MIXED),
        /** Only first packets declaring --max-message. */
        MEMORY(List.of(HostilePeer.Attack.HUGE_FIRST_PACKET)),
        /** Only 69-byte first packets. */
        REFLECT(List.of(HostilePeer.Attack.TINY_FIRST_PACKET));

        final List<HostilePeer.Attack> packets;

        Attack(List<HostilePeer.Attack> packets) {
            this.packets = packets;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Mixin
    HelpOption help;

    @Bounds(min = 0, minExclusive = true, max = 86_400)
    @Option(names = "--seconds", paramLabel = "S", description = "how long (default 10)")
    double seconds = 10;

    @Bounds(min = 1, max = 10_000_000)
    @Option(names = "--rate", paramLabel = "N", description = "hostile datagrams per second (default 20000)")
    int rate = 20_000;

    @Bounds(min = 1, max = 10_000)
    @Option(names = "--ports", paramLabel = "N", description = "source ports the hostile peer spreads over (default"
            + " 256)")
    int ports = 256;

    @Bounds(min = 1, max = 10_000_000)
    @Option(names = "--max-server-rpcs", paramLabel = "N", description = "the server's cap (default HomaConfig's)")
    Integer maxServerRpcs;

    @Bounds(min = 1)
    @Option(names = "--max-buffered-total", paramLabel = "B", description = "the server's cap (default HomaConfig's)")
    Long maxBufferedTotal;

    @Bounds(min = 1)
    @Option(names = "--max-buffered-per-peer", paramLabel = "B",
            description = "the server's cap (default HomaConfig's)")
    Long maxBufferedPerPeer;

    @Bounds(min = 1, max = 1 << 30)
    @Option(names = "--max-message", paramLabel = "B", description = "the server's longest message (default "
            + ClientOptions.DEFAULT_MAX_MESSAGE + ")")
    int maxMessage = ClientOptions.DEFAULT_MAX_MESSAGE;

    @Bounds(min = 1, max = 1 << 30)
    @Option(names = "--flood-bytes", paramLabel = "B", description = "bytes of each flooding message (default 60000)")
    int floodBytes = 60_000;

    @Mixin
    SeedOption seed;

    @Option(names = "--attack", paramLabel = "KIND", description = "${COMPLETION-CANDIDATES}; memory: only first"
            + " packets declaring --max-message; reflect: only 69-byte first packets (default mixed)")
    Attack attack = Attack.MIXED;

    /** The run these options describe. */
    HostilePlan plan() {
        HomaConfig defaults = HomaConfig.defaults();
        HomaConfig server = HomaConfig.builder().maxMessageBytes(maxMessage)
                .maxServerRpcs(maxServerRpcs != null ? maxServerRpcs : defaults.maxServerRpcs())
                .maxBufferedBytesTotal(maxBufferedTotal != null ? maxBufferedTotal : defaults.maxBufferedBytesTotal())
                .maxBufferedBytesPerPeer(maxBufferedPerPeer != null ? maxBufferedPerPeer
                        : defaults.maxBufferedBytesPerPeer())
                .build();
        return new HostilePlan(seconds, rate, ports, server, maxMessage, floodBytes, 2, 20_000, seed.seed(),
                attack.packets);
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        HostilePlan plan = plan();
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
}
