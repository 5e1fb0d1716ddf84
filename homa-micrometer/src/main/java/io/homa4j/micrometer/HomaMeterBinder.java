package io.homa4j.micrometer;

import io.homa4j.HomaEndpoint;
import io.homa4j.RpcObserver;
import io.homa4j.core.ErrorCode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for one {@link HomaEndpoint}: the engine's counters and gauges ({@code homa.packets},
 * {@code homa.client.rpcs}, ...), the UDP layer's counters ({@code homa.transport.*}), per-call timers by outcome
 * and request size ({@code homa.client.calls}, {@code homa.server.requests}), and per-peer rates of the busiest
 * peers ({@code homa.peer.*}). Every meter carries {@code endpoint="host:port"} and the binder's extra tags.
 *
 * <pre>{@code
 * HomaMeterBinder metrics = HomaMeterBinder.builder().build();
 * HomaEndpoint endpoint = HomaEndpoint.builder().observer(metrics).build();   // sees every call's end
 * // with an observer of your own: .observer(RpcObserver.all(metrics, yours))
 * metrics.attach(endpoint).bindTo(registry);
 * // ... endpoint.close(); metrics.close();
 * }</pre>
 *
 * <p>Nothing here waits for the endpoint's event loop: counters read the snapshots the endpoint publishes, timers
 * are recorded by the event loop as calls end, and the busiest peers are published once per window.
 *
 * <p>Threading: thread-safe; the {@link RpcObserver} methods are called by the endpoint's event loop. One binder
 * observes one endpoint. {@link #close()} stops the thread that refreshes the per-peer gauges.
 */
public final class HomaMeterBinder implements MeterBinder, RpcObserver, AutoCloseable {
    private final Tags extraTags;
    private final CallTimers timers;
    private final BusiestPeers peers;
    private final LongSupplier clock;
    private final List<MultiGauge[]> peerGauges = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private volatile HomaEndpoint endpoint;
    private ScheduledExecutorService refresher; // guarded by lock
    private boolean closed; // guarded by lock

    private HomaMeterBinder(Builder b) {
        this.extraTags = b.tags;
        this.timers = new CallTimers(b.sizeBuckets, b.percentileHistogram);
        this.clock = b.clock;
        this.peers = new BusiestPeers(b.busiestPeers, b.peerWindow.toNanos(), clock.getAsLong());
    }

    /** @return a builder with the defaults: {@link SizeBuckets#DEFAULT}, 10 busiest peers over 10 s windows */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Names the endpoint whose counters to publish; the endpoint must have been built with this binder as its
     * observer for the timers and peer figures to fill.
     *
     * @param endpoint the endpoint, built with {@code observer(this)}
     * @return this binder
     * @throws IllegalStateException when a different endpoint was attached before
     */
    public HomaMeterBinder attach(HomaEndpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        synchronized (lock) {
            if (this.endpoint != null && this.endpoint != endpoint) {
                throw new IllegalStateException("this binder already observes " + this.endpoint);
            }
            this.endpoint = endpoint;
        }
        return this;
    }

    /**
     * Registers every meter with {@code registry}; may be called for several registries.
     *
     * @throws IllegalStateException when no endpoint was attached, or after {@link #close()}
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        HomaEndpoint e = endpoint;
        if (e == null) {
            throw new IllegalStateException("attach(endpoint) before bindTo(registry)");
        }
        Tags tags = Tags.of("endpoint", e.localAddress().getHostString() + ":" + e.localAddress().getPort())
                .and(extraTags);
        EngineMeters.bind(registry, e, tags);
        TransportMeters.bind(registry, e, tags);
        timers.bind(registry, tags);
        peerGauges.add(new MultiGauge[] {
            peerGauge(registry, "homa.peer.calls", "calls and served requests per second", "rpcs/s", tags),
            peerGauge(registry, "homa.peer.failures", "failed calls and requests per second", "rpcs/s", tags),
            peerGauge(registry, "homa.peer.sent", "message bytes sent to the peer per second", "bytes/s", tags),
            peerGauge(registry, "homa.peer.received", "message bytes received from the peer per second", "bytes/s",
                    tags),
            peerGauge(registry, "homa.peer.rtt", "mean round-trip time of completed calls", "seconds", tags),
        });
        startRefresher();
        refreshPeers();
    }

    private static MultiGauge peerGauge(MeterRegistry registry, String name, String description, String unit,
                                        Tags tags) {
        return MultiGauge.builder(name).description(description).baseUnit(unit).tags(tags).register(registry);
    }

    private void startRefresher() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (refresher == null) {
                refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "homa4j-meters");
                    t.setDaemon(true);
                    return t;
                });
                long period = Math.max(peers.windowNanos() / 2, TimeUnit.MILLISECONDS.toNanos(10));
                refresher.scheduleAtFixedRate(this::refreshPeers, period, period, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Replaces the per-peer rows with the last published window; none when it is more than two windows old. */
    void refreshPeers() {
        List<BusiestPeers.PeerFigures> busiest = peers.published();
        if (clock.getAsLong() - peers.publishedAtNanos() > 2 * peers.windowNanos()) {
            busiest = List.of(); // nothing ended for a while: the endpoint has no busy peers
        }
        for (MultiGauge[] g : peerGauges) {
            g[0].register(rows(busiest, BusiestPeers.PeerFigures::callsPerSecond), true);
            g[1].register(rows(busiest, BusiestPeers.PeerFigures::failuresPerSecond), true);
            g[2].register(rows(busiest, BusiestPeers.PeerFigures::bytesSentPerSecond), true);
            g[3].register(rows(busiest, BusiestPeers.PeerFigures::bytesReceivedPerSecond), true);
            g[4].register(rows(busiest, BusiestPeers.PeerFigures::meanRttSeconds), true);
        }
    }

    private static List<MultiGauge.Row<?>> rows(List<BusiestPeers.PeerFigures> busiest,
                                                ToDoubleFunction<BusiestPeers.PeerFigures> value) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>(busiest.size());
        for (BusiestPeers.PeerFigures p : busiest) {
            String peer = p.peer().getHostString() + ":" + p.peer().getPort();
            rows.add(MultiGauge.Row.of(Tags.of("peer", peer), value.applyAsDouble(p)));
        }
        return rows;
    }

    /** Stops refreshing the per-peer gauges (they keep their last values). Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (refresher != null) {
                refresher.shutdownNow();
            }
        }
    }

    // ---- RpcObserver: on the endpoint's event loop ----

    @Override
    public void callCompleted(long rpcId, InetSocketAddress server, int requestBytes, int responseBytes,
                              long rttNanos) {
        timers.callCompleted(requestBytes, rttNanos);
        peers.onCallCompleted(server, requestBytes, responseBytes, rttNanos, clock.getAsLong());
    }

    @Override
    public void callFailed(long rpcId, InetSocketAddress server, int requestBytes, ErrorCode code,
                           long elapsedNanos) {
        timers.callFailed(requestBytes, code, elapsedNanos);
        peers.onCallFailed(server, requestBytes, clock.getAsLong());
    }

    @Override
    public void requestServed(long rpcId, InetSocketAddress client, int requestBytes, int responseBytes,
                              long serviceNanos) {
        timers.requestServed(requestBytes, responseBytes >= 0, serviceNanos);
        peers.onRequestServed(client, requestBytes, responseBytes, clock.getAsLong());
    }

    /** Options of a {@link HomaMeterBinder}. Not thread-safe. */
    public static final class Builder {
        private SizeBuckets sizeBuckets = SizeBuckets.DEFAULT;
        private int busiestPeers = 10;
        private Duration peerWindow = Duration.ofSeconds(10);
        private boolean percentileHistogram;
        private Tags tags = Tags.empty();
        private LongSupplier clock = System::nanoTime;

        private Builder() {
        }

        /** Package-private wiring (the tests' virtual clock): the clock that times the per-peer windows. */
        Builder clock(LongSupplier clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param buckets how the call timers split calls by request size (the {@code size} tag)
         * @return this builder
         */
        public Builder sizeBuckets(SizeBuckets buckets) {
            this.sizeBuckets = Objects.requireNonNull(buckets, "buckets");
            return this;
        }

        /**
         * @param count  how many of the busiest peers get {@code homa.peer.*} rows (by bytes moved both ways)
         * @param window the window the rates are taken over
         * @return this builder
         */
        public Builder busiestPeers(int count, Duration window) {
            if (count < 0) {
                throw new IllegalArgumentException("count must not be negative: " + count);
            }
            Objects.requireNonNull(window, "window");
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("window must be positive: " + window);
            }
            this.busiestPeers = count;
            this.peerWindow = window;
            return this;
        }

        /**
         * @param enabled whether the call timers publish percentile histograms (for Prometheus'
         *                {@code histogram_quantile}); default false
         * @return this builder
         */
        public Builder percentileHistogram(boolean enabled) {
            this.percentileHistogram = enabled;
            return this;
        }

        /**
         * @param extra tags added to every meter (a service or shard name, say)
         * @return this builder
         */
        public Builder tags(Iterable<Tag> extra) {
            this.tags = Tags.of(Objects.requireNonNull(extra, "extra"));
            return this;
        }

        /** @return the binder */
        public HomaMeterBinder build() {
            return new HomaMeterBinder(this);
        }
    }
}
