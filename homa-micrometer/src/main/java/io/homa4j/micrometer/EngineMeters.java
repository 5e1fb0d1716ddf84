package io.homa4j.micrometer;

import io.homa4j.HomaEndpoint;
import io.homa4j.core.ErrorCode;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketType;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The protocol engine's counters and gauges as meters. Each reads {@link HomaEndpoint#metrics()}, the snapshot
 * the endpoint publishes from its event loop, so a scrape never waits for the loop. A snapshot is missing only
 * with a test engine that keeps none; the meters then read 0.
 */
final class EngineMeters {
    private EngineMeters() {
    }

    static void bind(MeterRegistry registry, HomaEndpoint endpoint, Tags tags) {
        for (PacketType type : PacketType.values()) {
            String t = type.name().toLowerCase(Locale.ROOT);
            counter(registry, endpoint, "homa.packets", "Homa packets", "packets",
                    tags.and("direction", "in", "type", t), m -> m.packetsIn(type));
            counter(registry, endpoint, "homa.packets", "Homa packets", "packets",
                    tags.and("direction", "out", "type", t), m -> m.packetsOut(type));
        }
        for (DropReason reason : DropReason.values()) {
            counter(registry, endpoint, "homa.packets.dropped", "received packets the engine dropped", "packets",
                    tags.and("reason", reason.name().toLowerCase(Locale.ROOT)), m -> m.drops(reason));
        }
        counter(registry, endpoint, "homa.bytes", "UDP payload bytes of Homa packets", "bytes",
                tags.and("direction", "in"), MetricsSnapshot::bytesIn);
        counter(registry, endpoint, "homa.bytes", "UDP payload bytes of Homa packets", "bytes",
                tags.and("direction", "out"), MetricsSnapshot::bytesOut);
        counter(registry, endpoint, "homa.message.bytes", "message bytes (in: first copies; out: with retransmissions)",
                "bytes", tags.and("direction", "in"), MetricsSnapshot::dataBytesIn);
        counter(registry, endpoint, "homa.message.bytes", "message bytes (in: first copies; out: with retransmissions)",
                "bytes", tags.and("direction", "out"), MetricsSnapshot::dataBytesOut);
        counter(registry, endpoint, "homa.retransmitted", "DATA packets sent again on a RESEND", "packets", tags,
                MetricsSnapshot::retransmittedPackets);
        counter(registry, endpoint, "homa.granted", "bytes granted beyond the unscheduled ones", "bytes", tags,
                MetricsSnapshot::grantedBytes);

        counter(registry, endpoint, "homa.client.rpcs", "client RPCs by how they ended (started: all)", "rpcs",
                tags.and("event", "started"), MetricsSnapshot::clientCalls);
        counter(registry, endpoint, "homa.client.rpcs", "client RPCs by how they ended (started: all)", "rpcs",
                tags.and("event", "completed"), MetricsSnapshot::clientCompleted);
        counter(registry, endpoint, "homa.client.rpcs", "client RPCs by how they ended (started: all)", "rpcs",
                tags.and("event", "aborted"), MetricsSnapshot::clientAborted);
        counter(registry, endpoint, "homa.client.rpcs", "client RPCs by how they ended (started: all)", "rpcs",
                tags.and("event", "restarted"), MetricsSnapshot::clientRestarts);
        for (ErrorCode code : ErrorCode.values()) {
            counter(registry, endpoint, "homa.client.rpcs", "client RPCs by how they ended (started: all)", "rpcs",
                    tags.and("event", "failed_" + code.name().toLowerCase(Locale.ROOT)), m -> m.clientFailed(code));
        }
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "delivered"), MetricsSnapshot::requestsDelivered);
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "replied"), MetricsSnapshot::serverReplies);
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "freed_by_ack"), MetricsSnapshot::serverFreedByAck);
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "freed_by_peer"), MetricsSnapshot::serverFreedByPeer);
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "expired"), MetricsSnapshot::serverExpired);
        counter(registry, endpoint, "homa.server.rpcs", "server RPCs by what happened to them", "rpcs",
                tags.and("event", "late_reply"), MetricsSnapshot::deadHandleReplies);
        counter(registry, endpoint, "homa.engine.errors", "errors the engine contained", "errors",
                tags.and("kind", "listener"), MetricsSnapshot::listenerErrors);
        counter(registry, endpoint, "homa.engine.errors", "errors the engine contained", "errors",
                tags.and("kind", "sink"), MetricsSnapshot::sinkErrors);

        gauge(registry, endpoint, "homa.client.active", "client RPCs alive", "rpcs", tags,
                MetricsSnapshot::clientRpcs);
        gauge(registry, endpoint, "homa.server.active", "server RPCs alive", "rpcs", tags,
                MetricsSnapshot::serverRpcs);
        gauge(registry, endpoint, "homa.buffered", "bytes reserved for incoming messages", "bytes", tags,
                MetricsSnapshot::bufferedBytes);
        gauge(registry, endpoint, "homa.buffered.max", "most bytes ever reserved for incoming messages", "bytes",
                tags, MetricsSnapshot::bufferedBytesHighWater);
        gauge(registry, endpoint, "homa.outgoing", "bytes of outgoing messages held", "bytes", tags,
                MetricsSnapshot::outgoingBytes);
        gauge(registry, endpoint, "homa.granted.messages.max", "most incoming messages granted at once",
                "messages", tags, MetricsSnapshot::grantedMessagesHighWater);
    }

    private static void counter(MeterRegistry registry, HomaEndpoint endpoint, String name, String description,
                                String unit, Tags tags, ToDoubleFunction<MetricsSnapshot> field) {
        FunctionCounter.builder(name, endpoint, e -> read(e, field))
                .description(description).baseUnit(unit).tags(tags).register(registry);
    }

    private static void gauge(MeterRegistry registry, HomaEndpoint endpoint, String name, String description,
                              String unit, Tags tags, ToDoubleFunction<MetricsSnapshot> field) {
        Gauge.builder(name, endpoint, e -> read(e, field))
                .description(description).baseUnit(unit).tags(tags).register(registry);
    }

    private static double read(HomaEndpoint endpoint, ToDoubleFunction<MetricsSnapshot> field) {
        MetricsSnapshot m = endpoint.metrics();
        return m == null ? 0 : field.applyAsDouble(m);
    }
}
