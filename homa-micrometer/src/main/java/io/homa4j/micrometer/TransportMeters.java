package io.homa4j.micrometer;

import io.homa4j.HomaEndpoint;
import io.homa4j.transport.TransportStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToLongFunction;

/** The UDP layer's totals ({@link HomaEndpoint#transportStats()}, read without waiting) as counters. */
final class TransportMeters {
    private TransportMeters() {
    }

    static void bind(MeterRegistry registry, HomaEndpoint endpoint, Tags tags) {
        counter(registry, endpoint, "homa.transport.datagrams", "UDP datagrams", "datagrams",
                tags.and("direction", "sent"), TransportStats::datagramsSent);
        counter(registry, endpoint, "homa.transport.datagrams", "UDP datagrams", "datagrams",
                tags.and("direction", "received"), TransportStats::datagramsReceived);
        counter(registry, endpoint, "homa.transport.bytes", "UDP payload bytes", "bytes",
                tags.and("direction", "sent"), TransportStats::bytesSent);
        counter(registry, endpoint, "homa.transport.bytes", "UDP payload bytes", "bytes",
                tags.and("direction", "received"), TransportStats::bytesReceived);
        counter(registry, endpoint, "homa.transport.gso.sends", "UDP GSO sends", "sends", tags,
                TransportStats::gsoSends);
        counter(registry, endpoint, "homa.transport.gso.segments", "datagrams sent inside GSO sends", "datagrams",
                tags, TransportStats::gsoSegments);
        counter(registry, endpoint, "homa.transport.gso.fallbacks", "GSO sends the kernel refused", "sends", tags,
                TransportStats::gsoFallbacks);
        counter(registry, endpoint, "homa.transport.dropped", "datagrams dropped by the UDP layer", "datagrams",
                tags.and("reason", "oversized"), TransportStats::oversizedDropped);
        counter(registry, endpoint, "homa.transport.dropped", "datagrams dropped by the UDP layer", "datagrams",
                tags.and("reason", "filtered_outbound"), TransportStats::filteredOutbound);
        counter(registry, endpoint, "homa.transport.dropped", "datagrams dropped by the UDP layer", "datagrams",
                tags.and("reason", "filtered_inbound"), TransportStats::filteredInbound);
        counter(registry, endpoint, "homa.transport.socket.errors", "socket errors", "errors", tags,
                TransportStats::socketErrors);
        counter(registry, endpoint, "homa.transport.engine.wakes", "runs of the engine's timers and pacer", "wakes",
                tags, TransportStats::engineWakes);
        counter(registry, endpoint, "homa.transport.engine.timer.wakes",
                "runs of the engine's timers and pacer that needed a wake-up of their own", "wakes", tags,
                TransportStats::timerWakes);
        counter(registry, endpoint, "homa.transport.engine.failures",
                "exceptions that escaped the engine into the event loop (bugs; each logged)", "exceptions", tags,
                TransportStats::engineFailures);
        for (ProbeOutcome outcome : ProbeOutcome.values()) {
            counter(registry, endpoint, "homa.transport.probes", "reachability probes of servers not heard from",
                    "probes", tags.and("outcome", outcome.tag), outcome.field);
        }
    }

    /** What became of the probes that learn whether anything listens at a server's port. */
    private enum ProbeOutcome {
        SENT("sent", TransportStats::probesSent),
        REFUSED("refused", TransportStats::probesRefused),
        SKIPPED("skipped", TransportStats::probesSkipped);

        final String tag;
        final ToLongFunction<TransportStats> field;

        ProbeOutcome(String tag, ToLongFunction<TransportStats> field) {
            this.tag = tag;
            this.field = field;
        }
    }

    private static void counter(MeterRegistry registry, HomaEndpoint endpoint, String name, String description,
                                String unit, Tags tags, ToLongFunction<TransportStats> field) {
        FunctionCounter.builder(name, endpoint, e -> field.applyAsLong(e.transportStats()))
                .description(description).baseUnit(unit).tags(tags).register(registry);
    }
}
