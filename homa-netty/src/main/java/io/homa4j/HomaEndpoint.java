package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.transport.DatagramSink;
import io.homa4j.transport.EngineDriver;
import io.homa4j.transport.HomaEngineAdapter;
import io.homa4j.transport.HomaInboundHandler;
import io.homa4j.transport.PacerTimerSlack;
import io.homa4j.transport.PacketFilter;
import io.homa4j.transport.ProtocolEngine;
import io.homa4j.transport.TransportCounters;
import io.homa4j.transport.TransportStats;
import io.homa4j.transport.UdpTransport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Homa endpoint: one UDP port that is both client ({@link #call}) and server ({@link #serve}), like a Homa
 * socket. Build one with {@link #builder()}.
 *
 * <pre>{@code
 * HomaEndpoint server = HomaEndpoint.builder().port(4000).build();
 * server.serve((ctx, request) -> ctx.reply(request.retain()));        // echo
 * try (HomaEndpoint client = HomaEndpoint.builder().build()) {
 *     byte[] response = client.call(server.localAddress(), "ping".getBytes()).join();
 * }
 * }</pre>
 *
 * <p>Threading: thread-safe. One event-loop thread drives the endpoint's protocol engine; every method may be
 * called from any thread and hands its work to that loop. Futures complete on the event loop, so their
 * non-async callbacks run there and must not block; blocking on a call's future from the event loop itself
 * throws {@link IllegalStateException} instead of deadlocking.
 *
 * <p>Ownership: {@code call} takes ownership of the request; the caller owns (must release) the response.
 * {@link #close()} fails outstanding calls with {@code CANCELLED} and releases every buffer the endpoint holds.
 */
public final class HomaEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HomaEndpoint.class);

    private final HomaConfig config;
    private final RpcObserver observer;
    private final EventLoopGroup ownGroup;
    private final EventLoop loop;
    private final TransportCounters counters = new TransportCounters();
    private final EngineDriver driver;
    private final UdpTransport transport;
    private final DatagramSink sink;
    private final HomaInboundHandler inbound;
    private final ProtocolEngine engine;
    private final InetSocketAddress localAddress;

    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile MetricsSnapshot lastMetrics;
    private final CompletableFuture<Void> closeDone = new CompletableFuture<>();
    private final AtomicReference<Service> service = new AtomicReference<>();

    /** Client RPCs by engine id; event loop only. */
    private final Map<Long, PendingCall<?>> calls = new HashMap<>();
    /** The call inside engine.call(), in case the engine reports its outcome before returning its id. */
    private PendingCall<?> starting;
    private boolean startingResolved;

    private record Service(RpcHandler handler, Executor executor) {
    }

    private HomaEndpoint(Builder b, UdpTransport.Kind kind, EventLoopGroup ownGroup, EventLoop loop) {
        this.config = PacerTimerSlack.apply(b.config, b.pacerTimerSlackNanos);
        this.observer = b.observer;
        this.ownGroup = ownGroup;
        this.loop = loop;
        this.driver = new EngineDriver(loop, System::nanoTime, counters);
        this.inbound = new HomaInboundHandler(driver, b.packetFilter, counters, config.maxUdpPayload());
        this.transport = UdpTransport.bind(kind, loop, b.bindAddress, b.port, config, b.socketBufferBytes, inbound);
        this.localAddress = transport.localAddress();
        this.sink = new DatagramSink(transport.channelByLevel(), b.packetFilter, counters,
                b.gso ? transport.gsoFactory() : null);
        try {
            ProtocolEngine.Factory factory = b.engineFactory;
            RpcListener listener = new Dispatcher();
            this.engine = loop.submit(() -> {
                ProtocolEngine e = factory.create(config, sink, listener, driver.now());
                driver.attach(e, sink);
                return e;
            }).syncUninterruptibly().getNow();
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        LOG.debug("endpoint bound to {} ({}, {} sockets, GSO {})", localAddress, kind,
                transport.perLevelTos() ? config.priorityLevels() : 1, sink.gsoEnabled() ? "on" : "off");
    }

    /** A builder with the defaults: loopback, ephemeral port, {@link HomaConfig#defaults()}, AUTO transport. */
    public static Builder builder() {
        NettyRequirement.checkOnce();
        return new Builder();
    }

    /** The address and port every socket of this endpoint is bound to. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** The protocol parameters in use. */
    public HomaConfig config() {
        return config;
    }

    /** The transport actually in use (never AUTO). */
    public TransportType transport() {
        return transport.kind() == UdpTransport.Kind.EPOLL ? TransportType.EPOLL : TransportType.NIO;
    }

    /** True when each priority level leaves through its own socket with its own TOS byte. */
    public boolean marksPriorityPerLevel() {
        return transport.perLevelTos();
    }

    /**
     * The engine's counters and gauges (packets by type, drops by reason, RPC outcomes, buffered bytes). Taken on
     * the event loop: from another thread this waits for the loop (at most a few seconds; when the loop is
     * stuck, or the endpoint is closed, the last snapshot is returned). Null with a test engine that keeps none.
     */
    public MetricsSnapshot metrics() {
        if (loop.inEventLoop()) {
            return driver.isClosed() ? lastMetrics : engine.metrics();
        }
        if (closed.get()) {
            closeDone.join();
            return lastMetrics;
        }
        try {
            return loop.submit(() -> driver.isClosed() ? lastMetrics : engine.metrics()).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return lastMetrics;
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            return lastMetrics;
        }
    }

    /** UDP-level totals (datagrams, GSO sends, drops) since the endpoint was built. */
    public TransportStats transportStats() {
        return counters.snapshot();
    }

    /** Same as {@code call(server, request, CallOptions.DEFAULT)}. */
    public CompletableFuture<ByteBuf> call(InetSocketAddress server, ByteBuf request) {
        return call(server, request, CallOptions.DEFAULT);
    }

    /**
     * Sends {@code request} to the endpoint at {@code server} and returns the future of its response.
     *
     * <p>Takes ownership of {@code request} (also when this method throws). The response belongs to whoever
     * takes it from the future and must be released. The future fails with {@link HomaException}; cancelling
     * it aborts the RPC and frees its state.
     *
     * @throws NullPointerException     for a null argument
     * @throws IllegalArgumentException for an unresolved address or port 0
     */
    public CompletableFuture<ByteBuf> call(InetSocketAddress server, ByteBuf request, CallOptions options) {
        Objects.requireNonNull(request, "request");
        long now = System.nanoTime();
        try {
            checkDestination(server);
            Objects.requireNonNull(options, "options");
        } catch (RuntimeException e) {
            request.release();
            throw e;
        }
        PendingCall.OfBuf call = new PendingCall.OfBuf(this, server, request.readableBytes(), now);
        start(call, request, options.deadlineFrom(now));
        return call;
    }

    /** Same as {@code call(server, request, CallOptions.DEFAULT)}. */
    public CompletableFuture<byte[]> call(InetSocketAddress server, byte[] request) {
        return call(server, request, CallOptions.DEFAULT);
    }

    /**
     * Convenience for byte arrays: {@code request} is wrapped, not copied (do not modify it until the future
     * completes), and the response is copied out and released.
     */
    public CompletableFuture<byte[]> call(InetSocketAddress server, byte[] request, CallOptions options) {
        Objects.requireNonNull(request, "request");
        checkDestination(server);
        Objects.requireNonNull(options, "options");
        long now = System.nanoTime();
        PendingCall.OfBytes call = new PendingCall.OfBytes(this, server, request.length, now);
        start(call, Unpooled.wrappedBuffer(request), options.deadlineFrom(now));
        return call;
    }

    /**
     * Serves requests with {@code handler}, run on the event loop. See {@link RpcHandler} for ownership.
     *
     * @throws IllegalStateException when already serving or closed
     */
    public void serve(RpcHandler handler) {
        serve0(handler, null);
    }

    /**
     * Serves requests with {@code handler}, run on {@code executor} (for handlers that block or compute).
     * When the executor rejects a request, the caller gets HANDLER_ERROR.
     *
     * @throws IllegalStateException when already serving or closed
     */
    public void serve(RpcHandler handler, Executor executor) {
        serve0(handler, Objects.requireNonNull(executor, "executor"));
    }

    private void serve0(RpcHandler handler, Executor executor) {
        Objects.requireNonNull(handler, "handler");
        if (closed.get()) {
            throw new IllegalStateException("endpoint " + localAddress + " is closed");
        }
        if (!service.compareAndSet(null, new Service(handler, executor))) {
            throw new IllegalStateException("endpoint " + localAddress + " already serves a handler");
        }
    }

    /**
     * Fails every outstanding call with {@code CANCELLED}, drops every server RPC, closes the sockets and
     * releases every buffer; stops the endpoint's own event loop (not a shared one). Idempotent. Blocks until
     * done, except when called on the endpoint's event loop, where it finishes the shutdown without waiting for
     * the loop to terminate.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (loop.inEventLoop()) {
                closeOnLoop();
            } else {
                try {
                    loop.execute(this::closeOnLoop);
                } catch (RejectedExecutionException loopGone) {
                    // A shared group was shut down under us: nothing runs on the loop any more, so its state is
                    // ours to clean up from here.
                    closeOnLoop();
                }
            }
        }
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

    /** For diagnosis in tests: the engine's next wake relative to now, and its pacer and queue gauges. */
    String debugState() {
        try {
            return loop.submit(() -> {
                long now = System.nanoTime();
                long wake = engine.nextWakeNanos();
                String s = "nextWakeIn=" + (wake == Long.MAX_VALUE ? "never" : (wake - now) + "ns");
                if (engine instanceof HomaEngineAdapter a) {
                    s += ", pacerQueueNanos=" + a.engine().pacerQueueNanos(now) + ", outgoing="
                            + a.engine().outgoingBytes() + ", clientRpcs=" + a.engine().clientRpcCount()
                            + ", serverRpcs=" + a.engine().serverRpcCount();
                }
                return s;
            }).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "unavailable: " + e;
        }
    }

    /** True once {@link #close} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "HomaEndpoint{" + localAddress + ", " + transport() + (closed.get() ? ", closed" : "") + '}';
    }

    // ---- event-loop side ----

    boolean inEventLoop() {
        return loop.inEventLoop();
    }

    private void closeOnLoop() {
        try {
            engine.close(driver.now());
            lastMetrics = engine.metrics();
        } catch (RuntimeException e) {
            LOG.error("engine failed to close cleanly", e);
        }
        driver.close();
        // The engine fails its calls through the listener; anything it missed is failed here.
        for (PendingCall<?> call : new ArrayList<>(calls.values())) {
            failCall(call, new HomaException(ErrorCode.CANCELLED, "endpoint closed", false));
        }
        calls.clear();
        sink.close();
        inbound.close();
        try {
            transport.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the sockets of {} failed", localAddress, e);
        }
        closeDone.complete(null);
    }

    private void start(PendingCall<?> call, ByteBuf request, long deadlineNanos) {
        if (closed.get()) {
            request.release();
            call.fail(closedError());
            return;
        }
        if (request.readableBytes() > config.maxMessageBytes()) {
            int length = request.readableBytes();
            request.release();
            call.fail(new HomaException(ErrorCode.MESSAGE_TOO_LARGE, "request of " + length
                    + " bytes exceeds maxMessageBytes " + config.maxMessageBytes(), true));
            return;
        }
        onLoop(() -> startOnLoop(call, request, deadlineNanos), () -> {
            request.release();
            call.fail(closedError());
        });
    }

    private void startOnLoop(PendingCall<?> call, ByteBuf request, long deadlineNanos) {
        if (driver.isClosed() || call.isDone()) {
            request.release();
            call.fail(closedError()); // no-op when the caller already cancelled
            return;
        }
        starting = call;
        startingResolved = false;
        try {
            long id = engine.call(call.server, request, deadlineNanos, driver.now());
            if (!startingResolved) {
                call.rpcId = id;
                calls.put(id, call);
            }
        } catch (RpcRejectedException rejected) {
            failCall(call, new HomaException(rejected.code(), rejected.getMessage(), true, rejected));
        } catch (RuntimeException bug) {
            LOG.error("engine threw from call()", bug);
            failCall(call, new HomaException(ErrorCode.UNAVAILABLE, "engine failure: " + bug, false, bug));
        } finally {
            starting = null;
        }
    }

    /** The caller completed the future itself (cancel, orTimeout, ...): abort the RPC. */
    void abandon(PendingCall<?> call) {
        onLoop(() -> {
            if (call.rpcId != PendingCall.NO_ID && calls.remove(call.rpcId, call)) {
                if (!driver.isClosed()) {
                    engine.abort(call.rpcId, driver.now());
                }
                notifyCallFailed(call, ErrorCode.CANCELLED);
            }
        }, () -> { });
    }

    void sendReply(ServerCall ctx, ByteBuf response) {
        onLoop(() -> {
            if (driver.isClosed()) {
                response.release();
                return;
            }
            int length = response.readableBytes();
            boolean live = engine.reply(ctx.handle, response, driver.now());
            if (live) {
                notifyServed(ctx, length);
            }
        }, response::release);
    }

    void sendError(ServerCall ctx, String message) {
        onLoop(() -> {
            if (!driver.isClosed() && engine.replyError(ctx.handle, message, driver.now())) {
                notifyServed(ctx, -1);
            }
        }, () -> { });
    }

    /** Runs {@code task} on the loop (now, when already there); runs {@code ifRejected} when the loop is gone. */
    private void onLoop(Runnable task, Runnable ifRejected) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException loopGone) {
            ifRejected.run();
        }
    }

    private void failCall(PendingCall<?> call, HomaException error) {
        if (call.fail(error)) {
            notifyCallFailed(call, error.code());
        }
    }

    private PendingCall<?> takeCall(long rpcId) {
        PendingCall<?> call = calls.remove(rpcId);
        if (call == null && starting != null && !startingResolved) {
            startingResolved = true;
            call = starting;
        }
        return call;
    }

    private HomaException closedError() {
        return new HomaException(ErrorCode.CANCELLED, "endpoint " + localAddress + " is closed", true);
    }

    private void dispatchRequest(long handle, InetSocketAddress client, ByteBuf request) {
        ServerCall ctx = new ServerCall(this, handle, client, request.readableBytes(), driver.now());
        Service s = service.get();
        if (s == null) {
            request.release();
            ctx.failIfUnreplied("endpoint " + localAddress + " does not serve requests");
            return;
        }
        if (s.executor == null) {
            runHandler(s.handler, ctx, request);
            return;
        }
        try {
            s.executor.execute(() -> runHandler(s.handler, ctx, request));
        } catch (RejectedExecutionException overloaded) {
            request.release();
            ctx.failIfUnreplied("server overloaded: handler executor rejected the request");
        }
    }

    private void runHandler(RpcHandler handler, ServerCall ctx, ByteBuf request) {
        try {
            handler.handle(ctx, request);
        } catch (Throwable t) {
            if (!ctx.failIfUnreplied("handler failed: " + t)) {
                LOG.warn("handler threw after replying (request from {})", ctx.client, t);
            } else {
                LOG.debug("handler failed (request from {})", ctx.client, t);
            }
        } finally {
            try {
                request.release();
            } catch (IllegalReferenceCountException overReleased) {
                LOG.warn("the handler released a request it did not retain (from {})", ctx.client);
            }
        }
    }

    private void notifyCallFailed(PendingCall<?> call, ErrorCode code) {
        if (observer == null) {
            return;
        }
        try {
            observer.callFailed(call.server, call.requestBytes, code, System.nanoTime() - call.startNanos);
        } catch (RuntimeException e) {
            LOG.warn("RpcObserver.callFailed threw", e);
        }
    }

    private void notifyServed(ServerCall ctx, int responseBytes) {
        if (observer == null) {
            return;
        }
        try {
            observer.requestServed(ctx.client, ctx.requestBytes, responseBytes, driver.now() - ctx.deliveredNanos);
        } catch (RuntimeException e) {
            LOG.warn("RpcObserver.requestServed threw", e);
        }
    }

    private static void checkDestination(InetSocketAddress server) {
        Objects.requireNonNull(server, "server");
        if (server.isUnresolved()) {
            throw new IllegalArgumentException("unresolved server address: " + server);
        }
        if (server.getPort() == 0) {
            throw new IllegalArgumentException("server port 0: " + server);
        }
    }

    /** The engine's upcalls, on the event loop. */
    private final class Dispatcher implements RpcListener {
        @Override
        public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
            if (closed.get()) {
                request.release();
                return;
            }
            dispatchRequest(serverHandle, client, request);
        }

        @Override
        public void onResponse(long rpcId, ByteBuf response) {
            PendingCall<?> call = takeCall(rpcId);
            if (call == null) {
                response.release();
                return;
            }
            int length = response.readableBytes();
            if (call.deliver(response) && observer != null) {
                try {
                    observer.callCompleted(call.server, call.requestBytes, length,
                            System.nanoTime() - call.startNanos);
                } catch (RuntimeException e) {
                    LOG.warn("RpcObserver.callCompleted threw", e);
                }
            }
        }

        @Override
        public void onCallFailed(long rpcId, RpcFailure failure) {
            PendingCall<?> call = takeCall(rpcId);
            if (call != null) {
                failCall(call, new HomaException(failure.code(), failure.message(), failure.retrySafe()));
            }
        }
    }

    /**
     * Configures and binds an endpoint. Not thread-safe; {@link #build()} may be called more than once (each
     * call binds a new endpoint).
     */
    public static final class Builder {
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private HomaConfig config = HomaConfig.defaults();
        private long pacerTimerSlackNanos = PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS;
        private TransportType transport = TransportType.AUTO;
        private EventLoopGroup group;
        private RpcObserver observer;
        private PacketFilter packetFilter = PacketFilter.NONE;
        private int socketBufferBytes = 4 << 20;
        private boolean gso = true;
        private ProtocolEngine.Factory engineFactory = HomaEngineAdapter.FACTORY;

        private Builder() {
        }

        /** Local address to bind; default loopback. */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * UDP port; 0 (default) picks an ephemeral one. Endpoints of one process that name the same non-zero
         * port share it (SO_REUSEPORT, epoll): the kernel spreads peers across them by address hash.
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range [0, 65535]: " + port);
            }
            this.port = port;
            return this;
        }

        public Builder config(HomaConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * The pacer's queue bound is raised to at least this much link time, because event-loop timers fire late
         * (see {@link PacerTimerSlack}); default {@link PacerTimerSlack#EVENT_LOOP_TIMER_SLACK_NANOS}, 0 keeps the
         * config's bound as it is. {@link HomaEndpoint#config()} reports the bound in effect.
         */
        public Builder pacerTimerSlackNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("pacerTimerSlackNanos must not be negative: " + nanos);
            }
            this.pacerTimerSlackNanos = nanos;
            return this;
        }

        public Builder transport(TransportType transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * Runs the endpoint on {@code group.next()} instead of a dedicated one-thread event loop. The group must
         * be a {@link MultiThreadIoEventLoopGroup} with an epoll or NIO I/O handler; the endpoint does not shut
         * it down. Sharing a group of N threads among N endpoints gives each its own core.
         */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /** Per-RPC callbacks, on the event loop; default none. */
        public Builder observer(RpcObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** Fault injection between engine and sockets (tests, experiments); default none. One per endpoint. */
        public Builder packetFilter(PacketFilter filter) {
            this.packetFilter = Objects.requireNonNull(filter, "filter");
            return this;
        }

        /** SO_RCVBUF and SO_SNDBUF of each socket; default 4 MiB (the kernel caps it at rmem_max/wmem_max). */
        public Builder socketBufferBytes(int bytes) {
            if (bytes < 65_536) {
                throw new IllegalArgumentException("socketBufferBytes must be at least 65536: " + bytes);
            }
            this.socketBufferBytes = bytes;
            return this;
        }

        /** Whether runs of full-size packets may go out as UDP GSO sends when supported; default true. */
        public Builder gso(boolean enabled) {
            this.gso = enabled;
            return this;
        }

        /** Test hook: the engine to drive instead of {@code HomaEngine}. */
        Builder engineFactory(ProtocolEngine.Factory factory) {
            this.engineFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * Binds the sockets and starts the endpoint.
         *
         * @throws HomaException           UNAVAILABLE when the transport cannot load or the port cannot be bound
         * @throws IllegalArgumentException when a supplied event loop group cannot carry the transport
         * @throws IllegalStateException    when called on the event loop the endpoint would run on
         */
        public HomaEndpoint build() {
            EventLoopGroup own = null;
            EventLoop loop;
            UdpTransport.Kind kind;
            if (group != null) {
                loop = group.next();
                kind = UdpTransport.kindOf(loop, transport);
                if (loop.inEventLoop()) {
                    throw new IllegalStateException("build() must not run on the event loop the endpoint would use");
                }
            } else {
                kind = UdpTransport.resolve(transport);
                own = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("homa4j-endpoint", true),
                        UdpTransport.ioHandlerFactory(kind));
                loop = own.next();
            }
            try {
                return new HomaEndpoint(this, kind, own, loop);
            } catch (RuntimeException e) {
                if (own != null) {
                    own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
                }
                throw e;
            }
        }
    }
}
