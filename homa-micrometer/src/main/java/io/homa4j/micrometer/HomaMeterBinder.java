package io.homa4j.micrometer;

import io.homa4j.HomaEndpoint;
import io.homa4j.transport.TransportStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Publishes one {@link HomaEndpoint}'s figures as Micrometer meters, tagged with the endpoint's local address
 * ({@code endpoint="127.0.0.1:4000"}) plus any tags given here.
 *
 * <pre>{@code
 * HomaMeterBinder.of(endpoint).bindTo(registry);
 * }</pre>
 *
 * <p>Every meter reads a published snapshot: a scrape never waits for the endpoint's event loop.
 *
 * <p>Thread-safe; bind it to as many registries as needed.
 */
public final class HomaMeterBinder implements MeterBinder {
    private final HomaEndpoint endpoint;
    private final Tags tags;

    private HomaMeterBinder(HomaEndpoint endpoint, Iterable<Tag> extraTags) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.tags = Tags.of("endpoint", endpoint.localAddress().getHostString() + ":"
                + endpoint.localAddress().getPort()).and(extraTags);
    }

    /**
     * A binder for {@code endpoint} with only the {@code endpoint} tag.
     *
     * @param endpoint the endpoint to observe
     * @return the binder
     */
    public static HomaMeterBinder of(HomaEndpoint endpoint) {
        return new HomaMeterBinder(endpoint, Tags.empty());
    }

    /**
     * A binder for {@code endpoint} whose meters also carry {@code extraTags} (a service or shard name, say).
     *
     * @param endpoint  the endpoint to observe
     * @param extraTags tags added to every meter
     * @return the binder
     */
    public static HomaMeterBinder of(HomaEndpoint endpoint, Iterable<Tag> extraTags) {
        return new HomaMeterBinder(endpoint, Objects.requireNonNull(extraTags, "extraTags"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        bindTransport(registry);
    }

    private void bindTransport(MeterRegistry registry) {
        transportCounter(registry, "homa.transport.datagrams", "UDP datagrams", TransportStats::datagramsSent,
                Tags.of("direction", "sent"));
        transportCounter(registry, "homa.transport.datagrams", "UDP datagrams", TransportStats::datagramsReceived,
                Tags.of("direction", "received"));
        transportCounter(registry, "homa.transport.bytes", "UDP payload bytes", TransportStats::bytesSent,
                Tags.of("direction", "sent"));
        transportCounter(registry, "homa.transport.bytes", "UDP payload bytes", TransportStats::bytesReceived,
                Tags.of("direction", "received"));
        transportCounter(registry, "homa.transport.gso.sends", "UDP GSO sends", TransportStats::gsoSends,
                Tags.empty());
        transportCounter(registry, "homa.transport.gso.segments", "datagrams sent inside GSO sends",
                TransportStats::gsoSegments, Tags.empty());
        transportCounter(registry, "homa.transport.gso.fallbacks", "GSO sends the kernel refused",
                TransportStats::gsoFallbacks, Tags.empty());
        transportCounter(registry, "homa.transport.dropped", "datagrams dropped by the UDP layer",
                TransportStats::oversizedDropped, Tags.of("reason", "oversized"));
        transportCounter(registry, "homa.transport.dropped", "datagrams dropped by the UDP layer",
                TransportStats::filteredOutbound, Tags.of("reason", "filtered_outbound"));
        transportCounter(registry, "homa.transport.dropped", "datagrams dropped by the UDP layer",
                TransportStats::filteredInbound, Tags.of("reason", "filtered_inbound"));
        transportCounter(registry, "homa.transport.socket.errors", "socket errors", TransportStats::socketErrors,
                Tags.empty());
        transportCounter(registry, "homa.transport.engine.wakes", "timer and pacer wake-ups of the engine",
                TransportStats::engineWakes, Tags.empty());
    }

    private void transportCounter(MeterRegistry registry, String name, String description,
                                  ToLongFunction<TransportStats> field, Tags meterTags) {
        FunctionCounter.builder(name, endpoint, e -> field.applyAsLong(e.transportStats()))
                .description(description)
                .tags(tags.and(meterTags))
                .register(registry);
    }
}
