package io.homa4j.grpc;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.homa4j.HomaEndpoint;
import io.homa4j.grpc.internal.HomaServer;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Builds an {@link io.grpc.Server} that serves gRPC services over Homa:
 *
 * <pre>{@code
 * Server server = HomaServerBuilder.forPort(50051).addService(new GreeterImpl()).build().start();
 * }</pre>
 *
 * <p>Unary methods are served, each call one Homa RPC; a call to a streaming method is answered
 * {@code UNIMPLEMENTED}. The handler's {@link io.grpc.Context} carries the caller's deadline and is cancelled when
 * the client cancels, its deadline passes, or the server shuts down. A handler that throws answers
 * {@code UNKNOWN}; one that calls {@code onError} with a {@code StatusRuntimeException} or {@code StatusException}
 * answers that status and its trailers, as in gRPC-java.
 *
 * <p>Not thread-safe; the server it builds is.
 */
public final class HomaServerBuilder {
    private final HomaEndpoint endpoint;
    private final InetAddress bindAddress;
    private final int port;
    private final List<ServerServiceDefinition> services = new ArrayList<>();
    private final List<ServerInterceptor> interceptors = new ArrayList<>();
    private Executor executor;
    private boolean direct;
    private int maxInboundMessageSize = HomaChannelBuilder.DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
    private int maxInboundMetadataSize = HomaChannelBuilder.DEFAULT_MAX_INBOUND_METADATA_SIZE;

    private HomaServerBuilder(HomaEndpoint endpoint, InetAddress bindAddress, int port) {
        this.endpoint = endpoint;
        this.bindAddress = bindAddress;
        this.port = port;
    }

    /**
     * A server on its own endpoint bound to {@code port} on every address; it shuts the endpoint down with it.
     *
     * @param port the UDP port, 0 for an ephemeral one ({@link Server#getPort()} tells which)
     * @return the builder
     */
    public static HomaServerBuilder forPort(int port) {
        return forAddress(BuilderSupport.wildcard(false), port);
    }

    /**
     * A server on its own endpoint bound to {@code address:port}; it shuts the endpoint down with it.
     *
     * @param address the local address to bind (loopback, say, for a test)
     * @param port    the UDP port, 0 for an ephemeral one
     * @return the builder
     */
    public static HomaServerBuilder forAddress(InetAddress address, int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        return new HomaServerBuilder(null, Objects.requireNonNull(address, "address"), port);
    }

    /**
     * A server on {@code endpoint}, which stays the caller's: the server takes its handler ({@code serve}), so the
     * endpoint must not serve anything else, but it may also make calls (a {@link HomaChannelBuilder#endpoint}).
     *
     * @param endpoint the endpoint to serve on
     * @return the builder
     */
    public static HomaServerBuilder forEndpoint(HomaEndpoint endpoint) {
        return new HomaServerBuilder(Objects.requireNonNull(endpoint, "endpoint"), null, 0);
    }

    /** Serves {@code service}'s methods. */
    public HomaServerBuilder addService(BindableService service) {
        return addService(service.bindService());
    }

    /** Serves the service's methods (wrap it with {@link ServerInterceptors#intercept} for per-service ones). */
    public HomaServerBuilder addService(ServerServiceDefinition service) {
        services.add(Objects.requireNonNull(service, "service"));
        return this;
    }

    /** Interceptors for every service; the last one given runs first, as with {@link ServerInterceptors}. */
    public HomaServerBuilder intercept(ServerInterceptor interceptor) {
        interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return this;
    }

    /**
     * Where the services' handlers run. Default: a cached thread pool the server owns, as gRPC-java's default.
     * The executor stays the caller's.
     *
     * @param executor the handlers' executor
     * @return this builder
     */
    public HomaServerBuilder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.direct = false;
        return this;
    }

    /**
     * Runs handlers on the endpoint's event loop: no thread hop, the lowest latency, for handlers that never block
     * and finish quickly (a blocking handler holds up every other call of the endpoint).
     *
     * @return this builder
     */
    public HomaServerBuilder directExecutor() {
        this.executor = null;
        this.direct = true;
        return this;
    }

    /**
     * The largest request message accepted (decompressed size too); a larger one is answered
     * {@code RESOURCE_EXHAUSTED} before it is parsed. Default 4 MiB. Requests are also bounded by the endpoint's
     * {@code HomaConfig.maxMessageBytes}.
     */
    public HomaServerBuilder maxInboundMessageSize(int bytes) {
        this.maxInboundMessageSize = BuilderSupport.positiveLimit("maxInboundMessageSize", bytes);
        return this;
    }

    /** The largest request headers accepted, counted as gRPC counts them; more is answered INTERNAL. 8 KiB. */
    public HomaServerBuilder maxInboundMetadataSize(int bytes) {
        this.maxInboundMetadataSize = BuilderSupport.positiveLimit("maxInboundMetadataSize", bytes);
        return this;
    }

    /**
     * Builds the server (binding its own endpoint, when it has one); {@link Server#start()} starts serving.
     *
     * @return the server
     */
    public Server build() {
        List<ServerServiceDefinition> served = new ArrayList<>(services.size());
        for (ServerServiceDefinition service : services) {
            served.add(interceptors.isEmpty() ? service : ServerInterceptors.intercept(service, interceptors));
        }
        boolean ownsEndpoint = endpoint == null;
        HomaEndpoint servedOn = ownsEndpoint
                ? HomaEndpoint.builder().bindAddress(bindAddress).port(port).build() : endpoint;
        ExecutorService ownedExecutor = executor == null && !direct
                ? Executors.newCachedThreadPool(BuilderSupport.daemonThreads("handler")) : null;
        ScheduledThreadPoolExecutor deadlines =
                new ScheduledThreadPoolExecutor(1, BuilderSupport.daemonThreads("deadlines"));
        deadlines.setRemoveOnCancelPolicy(true);
        // null: on the event loop, where the endpoint's handler runs
        Executor handlers = direct ? null : executor != null ? executor : ownedExecutor;
        return new HomaServer(servedOn, ownsEndpoint, served, handlers, ownedExecutor, deadlines,
                maxInboundMessageSize, maxInboundMetadataSize);
    }
}
