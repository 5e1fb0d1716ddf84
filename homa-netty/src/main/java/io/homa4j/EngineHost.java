package io.homa4j;

import io.homa4j.core.Engine;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.RpcListener;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.internal.FaultInjectingHandler;
import io.homa4j.transport.TransportStats;
import io.homa4j.transport.internal.DatagramSink;
import io.homa4j.transport.internal.EngineDriver;
import io.homa4j.transport.internal.HomaInboundHandler;
import io.homa4j.transport.internal.KernelSocketDrops;
import io.homa4j.transport.internal.PacerFit;
import io.homa4j.transport.internal.PeerProbes;
import io.homa4j.transport.internal.TransportCounters;
import io.homa4j.transport.internal.UdpTransport;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * The machinery under one endpoint: its event loop (and the group it owns, if any), the sockets, the engine and
 * the driver that runs the engine on the loop. Owns the endpoint's lifecycle state: whether it is closed, when the
 * shutdown on the loop finished, and the last metrics taken before the engine closed.
 *
 * <p>Threading: {@link #onLoop}, {@link #metrics}, {@link #markClosed}, {@link #isClosed} and {@link #awaitClosed}
 * are thread-safe; the rest is for the event loop (or for the single thread that shuts down a loop already gone).
 */
final class EngineHost {
    private static final Logger LOG = LoggerFactory.getLogger(EngineHost.class);

    private final HomaConfig config;
    private final EventLoopGroup ownGroup;
    private final EventLoop loop;
    private final TransportCounters counters = new TransportCounters();
    private final EngineDriver driver;
    private final HomaInboundHandler inbound;
    private final UdpTransport transport;
    private final DatagramSink sink;
    private final InetSocketAddress localAddress;
    private final LongSupplier clock;
    private final boolean probePeers;
    /** Fits the engine's pacer to this loop's timers; null when there is nothing to fit. */
    private final PacerFit pacerFit;

    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Tasks from application threads, drained by the loop in one pass ({@link #onLoop}). */
    private final Queue<LoopTask> fromOtherThreads = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainFromOtherThreads = this::drainFromOtherThreads;
    private final CompletableFuture<Void> closeDone = new CompletableFuture<>();
    /** The engine's metrics as last published by the loop; the final ones once the engine closed. */
    private volatile MetricsPublication publication;
    /** Set once by {@link #startEngine}, before any task that uses it is handed to the loop. */
    private Engine engine;

    /**
     * Opens the sockets on {@code loop}; the engine is started separately ({@link #startEngine}) because its
     * listener needs this host.
     *
     * @param ownGroup the group to shut down at close, or null when the loop belongs to the application
     * @param clock    the endpoint's time ({@code System::nanoTime}; a test's manual clock with embedded sockets)
     * @param pacerFit the fit of the engine's pacer to the loop's timers ({@link PacerFit#forConfig}), or null
     */
    EngineHost(HomaConfig config, EventLoopGroup ownGroup, EventLoop loop, LongSupplier clock, Sockets sockets,
               DatagramFilter packetFilter, boolean gso, PacerFit pacerFit) {
        this.config = config;
        this.pacerFit = pacerFit;
        this.ownGroup = ownGroup;
        this.loop = loop;
        this.clock = clock;
        this.driver = new EngineDriver(loop, clock, counters);
        this.inbound = new HomaInboundHandler(driver, counters, config.maxUdpPayload());
        // Fault injection is a handler in front of each socket's pipeline, there only when a filter is set; it
        // judges single datagrams, so such an endpoint sends no GSO batches.
        boolean faults = packetFilter != DatagramFilter.NONE;
        this.probePeers = sockets.kernelReachesPeers();
        this.transport = sockets.open(inbound,
                faults ? level -> new FaultInjectingHandler(packetFilter, level, counters) : null);
        this.localAddress = transport.localAddress();
        this.sink = new DatagramSink(transport.channelByLevel(), counters,
                gso && !faults ? transport.gsoFactory() : null);
    }

    /**
     * Creates the engine on the loop, connects it to the sockets and starts publishing its metrics (within
     * {@code metricsIntervalNanos} of a change, see {@link MetricsPublication}); closes the sockets when that fails.
     */
    void startEngine(EngineFactory factory, long metricsIntervalNanos, RpcListener listener) {
        Callable<Engine> start = () -> {
            Engine e = factory.create(config, sink, listener, driver.now());
            // Set here, on the loop, before the driver lets packets in: a request arriving at once (a restarted
            // server's clients keep sending) is answered on this loop, which must already see the engine.
            engine = e;
            driver.attach(e, sink, probePeers ? new PeerProbes(e, config, localAddress.getAddress(), counters) : null,
                    pacerFit);
            publication = new MetricsPublication(e::metrics, metricsIntervalNanos, driver.now());
            driver.afterEachTurn(publication);
            return e;
        };
        try {
            // Already on the loop only with embedded sockets (a test's loop runs tasks when the test says so).
            this.engine = loop.inEventLoop() ? start.call() : loop.submit(start).syncUninterruptibly().getNow();
        } catch (Exception e) {
            transport.close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException("engine failed to start", e);
        }
        LOG.debug("endpoint bound to {} ({}, {} sockets, GSO {})", localAddress, transport.kind(),
                transport.perLevelTos() ? config.priorityLevels() : 1, sink.gsoEnabled() ? "on" : "off");
    }

    HomaConfig config() {
        return config;
    }

    InetSocketAddress localAddress() {
        return localAddress;
    }

    UdpTransport transport() {
        return transport;
    }

    TransportStats transportStats() {
        return counters.snapshot(KernelSocketDrops.forPort(localAddress.getPort()));
    }

    boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /** The engine; event loop only. */
    Engine engine() {
        return engine;
    }

    /** True once the engine stopped (closed on the loop): it must not be called any more. Event loop only. */
    boolean engineStopped() {
        return driver.isClosed();
    }

    /** A call to {@code server} went into the engine (see {@link EngineDriver#callStarted}). Event loop only. */
    void callStarted(InetSocketAddress server) {
        driver.callStarted(server);
    }

    /** The endpoint's clock, on any thread: {@code System.nanoTime()} except in tests with embedded sockets. */
    long nanoTime() {
        return clock.getAsLong();
    }

    /** The time of this event-loop turn (see {@link EngineDriver#now()}). Event loop only. */
    long now() {
        return driver.now();
    }

    /**
     * Runs {@code task} on the loop (now, when already there); runs {@code ifRejected} when the loop is gone.
     *
     * <p>From other threads, tasks (calls, replies, cancellations) go into one queue that the loop drains once per
     * turn: a burst of calls from application threads costs one loop task and at most one wake-up, not one each,
     * and the engine then sends what they started in one transmit pass per turn.
     */
    void onLoop(Runnable task, Runnable ifRejected) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        fromOtherThreads.offer(new LoopTask(task, ifRejected));
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainFromOtherThreads);
            } catch (RejectedExecutionException loopGone) {
                rejectQueued();
            }
        }
    }

    /** Marks the endpoint as shutting down (no new calls or requests); true for the one caller that did it. */
    boolean markShuttingDown() {
        return shuttingDown.compareAndSet(false, true);
    }

    /** True once a shutdown or close began: new calls fail and new requests are refused. */
    boolean isShuttingDown() {
        return shuttingDown.get() || closed.get();
    }

    private void drainFromOtherThreads() {
        // Cleared before draining: a task offered from now on either is drained below or schedules a new drain.
        drainScheduled.set(false);
        for (LoopTask t; (t = fromOtherThreads.poll()) != null; ) {
            try {
                t.task.run();
            } catch (RuntimeException | Error e) {
                // Logged and passed over, as Netty does with a task that throws: rethrown, it would strand the
                // tasks still queued behind it until some later call happened to schedule another drain.
                LOG.error("task handed to the event loop of {} threw", localAddress, e);
            }
        }
    }

    private void rejectQueued() {
        drainScheduled.set(false); // a task offered after the poll below schedules (and is rejected) on its own
        for (LoopTask t; (t = fromOtherThreads.poll()) != null; ) {
            t.ifRejected.run();
        }
    }

    private record LoopTask(Runnable task, Runnable ifRejected) {
    }

    /** Marks the endpoint closed; true for the one caller that did it. */
    boolean markClosed() {
        shuttingDown.set(true);
        return closed.compareAndSet(false, true);
    }

    boolean isClosed() {
        return closed.get();
    }

    /**
     * The engine's metrics without waiting: on the loop, taken now; elsewhere, the snapshot the loop published
     * last (missing at most one interval of changes; the final one once the endpoint closed). Null with a test engine
     * that keeps none.
     */
    MetricsSnapshot metrics() {
        if (loop.inEventLoop()) {
            publishMetrics();
        }
        return publication.latest();
    }

    /** The engine's metrics taken on the loop at its next turn (the final ones when the engine already closed). */
    CompletableFuture<MetricsSnapshot> metricsNow() {
        CompletableFuture<MetricsSnapshot> taken = new CompletableFuture<>();
        onLoop(() -> {
            publishMetrics();
            taken.complete(publication.latest());
        }, () -> taken.complete(publication.latest()));
        return taken;
    }

    private void publishMetrics() {
        if (!driver.isClosed()) {
            publication.publish(now());
        }
    }

    /** Closes the engine (which fails its calls through the listener) and keeps its last metrics. */
    void stopEngine() {
        try {
            engine.close(driver.now());
            publication.publish(driver.now());
        } catch (RuntimeException e) {
            LOG.error("engine failed to close cleanly", e);
        }
        driver.close();
    }

    /** Closes the sockets and releases every buffer they hold; the last step of a close. */
    void closeSockets() {
        sink.close();
        inbound.close();
        try {
            transport.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the sockets of {} failed", localAddress, e);
        }
        closeDone.complete(null);
    }

    /** True once the close on the loop finished: sockets closed, every buffer released. */
    boolean isTerminated() {
        return closeDone.isDone();
    }

    /** Waits at most {@code nanos} for {@link #isTerminated}; returns it. */
    boolean awaitTerminated(long nanos) throws InterruptedException {
        try {
            closeDone.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException notYet) {
            return false;
        } catch (ExecutionException impossible) {
            return true; // closeDone is only ever completed normally
        }
    }

    /** Runs {@code task} on the loop every {@code periodNanos}, first after one period. Event loop only. */
    ScheduledFuture<?> every(long periodNanos, Runnable task) {
        return loop.scheduleAtFixedRate(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits for the shutdown on the loop to finish (not when called on the loop itself) and stops the endpoint's
     * own event loop group, if it has one.
     */
    void awaitClosed() {
        if (loop.inEventLoop()) {
            if (ownGroup != null) {
                ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            }
            return;
        }
        try {
            closeDone.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("endpoint {} did not finish closing within 10 s (its event loop is stuck or gone)",
                    localAddress);
        }
        if (ownGroup != null) {
            ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** For diagnosis in tests: the engine's next wake relative to now, and its queue gauges. */
    String debugState() {
        try {
            return loop.submit(() -> {
                long now = clock.getAsLong();
                long wake = engine.nextWakeNanos();
                String s = "nextWakeIn=" + (wake == Long.MAX_VALUE ? "never" : (wake - now) + "ns");
                MetricsSnapshot m = engine.metrics();
                if (m != null) {
                    s += ", outgoing=" + m.outgoingBytes() + ", clientRpcs=" + m.clientRpcs()
                            + ", serverRpcs=" + m.serverRpcs();
                }
                return s;
            }).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "unavailable: " + e;
        }
    }

    /**
     * Opens the sockets of one endpoint around its inbound handler: UDP sockets bound by {@link UdpTransport}, or
     * in tests an embedded channel ({@code HomaEndpointBuilder.embedded}).
     */
    @FunctionalInterface
    interface Sockets {
        /**
         * @param inbound       the last handler of every socket's pipeline
         * @param beforeInbound the handler to put in front of it for each priority level, or null for none
         */
        UdpTransport open(ChannelHandler inbound, IntFunction<ChannelHandler> beforeInbound);

        /**
         * Whether the kernel can tell that nothing listens at a server's address ({@link PeerProbes} sends to it
         * from sockets of its own): not for embedded sockets, whose addresses exist only inside the test.
         */
        default boolean kernelReachesPeers() {
            return true;
        }
    }

    /** Creates the engine of one endpoint; tests supply a scripted one ({@code HomaEndpointBuilder.engineFactory}). */
    @FunctionalInterface
    interface EngineFactory {
        /**
         * The real engine, allocating its packets from the sink's {@link DatagramSink#packetAllocator() arena}
         * (so that runs of them reach the kernel as one piece of memory) and everything else from the pooled
         * direct allocator behind it.
         */
        EngineFactory HOMA = (config, sink, listener, nowNanos) ->
                new HomaEngine(config, sink, listener, sink.packetAllocator(), nowNanos);

        /**
         * Real engines that allocate packets and message buffers from {@code allocator} (tests count what the engine
         * holds, or make allocations fail, through their own).
         */
        static EngineFactory homa(ByteBufAllocator allocator) {
            return (config, sink, listener, nowNanos) -> new HomaEngine(config, sink, listener, allocator, nowNanos);
        }

        Engine create(HomaConfig config, DatagramSink sink, RpcListener listener, long nowNanos);
    }
}
