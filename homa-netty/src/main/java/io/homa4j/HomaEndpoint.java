package io.homa4j;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.transport.TransportStats;
import io.homa4j.transport.internal.UdpTransport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

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
 *
 * <p>Inside: the {@link HomaEndpointBuilder} wires an {@code EngineHost} (event loop, sockets, engine,
 * lifecycle), a {@code ClientCallTable} (calls in flight) and a {@code ServerDispatcher} (the handler); this
 * class checks arguments and delegates.
 */
public final class HomaEndpoint implements AutoCloseable {
    private static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

    private final HomaConfig config;
    private final EngineHost host;
    private final ClientCallTable calls;
    private final ServerDispatcher server;
    /** For {@link CallOptions#DEFAULT}; Long.MAX_VALUE for none. */
    private final long defaultCallTimeoutNanos;

    HomaEndpoint(HomaConfig config, EngineHost host, ClientCallTable calls, ServerDispatcher server,
                 long defaultCallTimeoutNanos) {
        this.config = config;
        this.defaultCallTimeoutNanos = defaultCallTimeoutNanos;
        this.host = host;
        this.calls = calls;
        this.server = server;
    }

    /** A builder with the defaults: loopback, ephemeral port, {@link HomaConfig#defaults()}, AUTO transport. */
    public static HomaEndpointBuilder builder() {
        NettyRequirement.checkOnce();
        return new HomaEndpointBuilder();
    }

    /**
     * An event loop group of {@code threads} busy-polling loops (see {@link HomaEndpointBuilder#busyPoll}) for
     * endpoints to share with {@link HomaEndpointBuilder#eventLoopGroup}: epoll where available, NIO elsewhere.
     * Each thread spins at 100% of a core until the group is shut down, which is the caller's job.
     *
     * @param threads loops in the group, at least 1
     * @return the new group
     */
    public static EventLoopGroup newBusyPollingGroup(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        UdpTransport.Kind kind = UdpTransport.automatic();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("homa4j-busy-poll", true),
                UdpTransport.ioHandlerFactory(kind, true));
    }

    /** The address and port every socket of this endpoint is bound to. */
    public InetSocketAddress localAddress() {
        return host.localAddress();
    }

    /** The protocol parameters in use. */
    public HomaConfig config() {
        return config;
    }

    /** The transport actually in use (never AUTO). */
    public TransportType transport() {
        return host.transport().kind() == UdpTransport.Kind.EPOLL ? TransportType.EPOLL : TransportType.NIO;
    }

    /** True when each priority level leaves through its own socket with its own TOS byte. */
    public boolean marksPriorityPerLevel() {
        return host.transport().perLevelTos();
    }

    /**
     * The engine's counters and gauges (packets by type, drops by reason, RPC outcomes, buffered bytes), without
     * waiting for the event loop: the snapshot the loop published last, missing at most the last
     * {@link HomaEndpointBuilder#metricsInterval} of changes (taken now when called on the loop; the final one after
     * {@link #close}). Counts RPCs the engine saw: calls that ended before reaching it are seen by the
     * {@link RpcObserver} only. Null with a test engine that keeps none.
     *
     * @return the latest published snapshot
     */
    public MetricsSnapshot metrics() {
        return host.metrics();
    }

    /**
     * The engine's counters and gauges taken on the event loop at its next turn, for a caller that needs them
     * exact (after a test's calls ended, say) and may wait for the loop.
     *
     * @return a future completed on the event loop (at once, with the final snapshot, after {@link #close})
     */
    public CompletableFuture<MetricsSnapshot> metricsNow() {
        return host.metricsNow();
    }

    /** UDP-level totals (datagrams, GSO sends, drops) since the endpoint was built. */
    public TransportStats transportStats() {
        return host.transportStats();
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
     * it aborts the RPC and frees its state. A request buffer released by someone else while the call starts
     * (it was also handed to another call that ended meanwhile, or another thread released it) fails the future
     * with {@code INVALID_ARGUMENT}, retry-safe.
     *
     * @throws NullPointerException     for a null argument
     * @throws IllegalArgumentException for an unresolved address or port 0, or a request buffer already
     *                                  released (a mistake of the caller's: it fails this call alone, never
     *                                  the endpoint's later calls)
     */
    public CompletableFuture<ByteBuf> call(InetSocketAddress server, ByteBuf request, CallOptions options) {
        return startCall(server, request, options, PendingCall.OfBuf::new);
    }

    /**
     * Like {@link #call(InetSocketAddress, ByteBuf, CallOptions)}, with the response's headers: the future
     * completes with an {@link RpcResponse} (payload and {@link RpcResponse#metadata()}), which the caller must
     * close.
     *
     * @param server  the server's address
     * @param request the request payload, taken over (also when this method throws)
     * @param options deadline and request headers
     * @return the future of the response
     * @throws NullPointerException     for a null argument
     * @throws IllegalArgumentException for an unresolved address or port 0, or a request buffer already released
     */
    public CompletableFuture<RpcResponse> callForResponse(InetSocketAddress server, ByteBuf request,
                                                          CallOptions options) {
        return startCall(server, request, options, PendingCall.OfResponse::new);
    }

    /** How a call's future is made: one constructor per response type. */
    @FunctionalInterface
    private interface NewCall<T> {
        PendingCall<T> create(ClientCallTable table, InetSocketAddress server, int requestBytes, long startNanos);
    }

    /** Checks the arguments of a ByteBuf call (releasing {@code request} when they are bad) and starts it. */
    private <T> PendingCall<T> startCall(InetSocketAddress server, ByteBuf request, CallOptions options,
                                         NewCall<T> newCall) {
        Objects.requireNonNull(request, "request");
        if (request.refCnt() <= 0) {
            throw new IllegalArgumentException("the request buffer was already released");
        }
        long now = host.nanoTime();
        try {
            checkDestination(server);
            Objects.requireNonNull(options, "options");
        } catch (RuntimeException e) {
            request.release();
            throw e;
        }
        PendingCall<T> call = newCall.create(calls, server, request.readableBytes(), now);
        calls.start(call, request, options.deadlineFrom(now, defaultCallTimeoutNanos), options.metadata());
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
        long now = host.nanoTime();
        PendingCall.OfBytes call = new PendingCall.OfBytes(calls, server, request.length, now);
        calls.start(call, Unpooled.wrappedBuffer(request), options.deadlineFrom(now, defaultCallTimeoutNanos),
                options.metadata());
        return call;
    }

    /**
     * Serves requests with {@code handler}, run on the event loop. See {@link RpcHandler} for ownership. Requests
     * that arrive before this call are refused with a retry-safe {@code UNAVAILABLE}; to serve from the first
     * packet, give the handler to the builder ({@link HomaEndpointBuilder#handler(RpcHandler)}).
     *
     * @throws IllegalStateException when already serving (also by the builder's handler) or closed
     */
    public void serve(RpcHandler handler) {
        server.serve(handler, null);
    }

    /**
     * Serves requests with {@code handler}, run on {@code executor} (for handlers that block or compute).
     * When the executor rejects a request, the caller gets {@code RESOURCE_EXHAUSTED} (retry-safe: the handler did
     * not run).
     *
     * @throws IllegalStateException when already serving (also by the builder's handler) or closed
     */
    public void serve(RpcHandler handler, Executor executor) {
        server.serve(handler, Objects.requireNonNull(executor, "executor"));
    }

    /** Same as {@code shutdown(Duration.ofSeconds(30))}. */
    public void shutdown() {
        shutdown(DEFAULT_GRACE);
    }

    /**
     * Begins a graceful shutdown and returns at once: new calls fail at once with {@code CANCELLED}
     * (retry-safe), new requests are refused (the caller gets {@code UNAVAILABLE}, retry-safe: the handler never
     * ran), and what is in flight may finish: outstanding calls, requests the handler holds, responses on their
     * way. When all of it has finished, or {@code grace} is over, the endpoint closes as with {@link #close()}
     * (what is still outstanding then fails with {@code CANCELLED}). Only the first call has an effect; a
     * {@link #close()} during the grace period stops at once.
     *
     * @param grace how long in-flight work may take
     */
    public void shutdown(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        long graceNanos = grace.isNegative() ? 0 : saturatedNanos(grace);
        if (!host.markShuttingDown()) {
            return;
        }
        long graceEnd = host.nanoTime() + graceNanos;
        host.onLoop(() -> new GracefulShutdown(host, calls, server, this::close, graceEnd).start(), this::close);
    }

    /**
     * Waits until the endpoint has terminated (after {@link #shutdown} drained or {@link #close} finished), at
     * most {@code timeout}.
     *
     * @return true when terminated, false when the time ran out first
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return host.awaitTerminated(unit.toNanos(timeout));
    }

    /** True once {@link #shutdown} or {@link #close} was called. */
    public boolean isShutdown() {
        return host.isShuttingDown();
    }

    /** True once the endpoint has closed: sockets closed, every buffer released. */
    public boolean isTerminated() {
        return host.isTerminated();
    }

    /**
     * True when the in-flight window ({@link HomaEndpointBuilder#maxCallsInFlight}) has room for another call;
     * a call made when it has none fails at once with {@code RESOURCE_EXHAUSTED}.
     */
    public boolean isReady() {
        return calls.window().isReady();
    }

    /**
     * Waits until the in-flight window has room, at most {@code timeout}. The room is not reserved: with several
     * threads calling, a call may still find the window full.
     *
     * @return true when there is room, false when the time ran out first
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return calls.window().awaitReady(saturatedNanos(timeout), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code task} once as soon as the in-flight window has room (at once when it has now): on the callback
     * executor when one was configured, otherwise on the thread that ended a call (usually the event loop), so
     * it must not block.
     */
    public void onReady(Runnable task) {
        Objects.requireNonNull(task, "task");
        Executor executor = calls.callbackExecutor();
        calls.window().onReady(task, executor != null ? executor : Runnable::run);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 2;
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
        if (host.markClosed()) {
            host.onLoop(this::closeOnLoop, this::closeOnLoop);
        }
        host.awaitClosed();
    }

    /** True once {@link #close} was called. */
    public boolean isClosed() {
        return host.isClosed();
    }

    @Override
    public String toString() {
        return "HomaEndpoint{" + localAddress() + ", " + transport() + (isClosed() ? ", closed" : "") + '}';
    }

    /** For diagnosis in tests: the engine's next wake relative to now, and its pacer and queue gauges. */
    String debugState() {
        return host.debugState();
    }

    /**
     * The shutdown, on the loop; or on the closing thread when a shared group was shut down under us (nothing
     * runs on the loop any more, so its state is ours to clean up from here).
     */
    private void closeOnLoop() {
        host.stopEngine(); // the engine fails its calls through the listener
        server.cancelAll(); // and drops its server RPCs: their handlers learn nobody waits
        calls.cancelAll(); // anything it missed
        host.closeSockets();
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
}
