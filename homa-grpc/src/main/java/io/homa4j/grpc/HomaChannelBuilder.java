package io.homa4j.grpc;

import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.homa4j.HomaEndpoint;
import io.homa4j.grpc.internal.HomaChannel;
import io.homa4j.grpc.internal.InterceptedChannel;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Builds a {@link ManagedChannel} whose unary calls travel as Homa RPCs; generated stubs (blocking, async,
 * future) use it as they use any channel:
 *
 * <pre>{@code
 * ManagedChannel channel = HomaChannelBuilder.forAddress("10.0.0.7", 50051).build();
 * GreeterGrpc.GreeterBlockingStub stub = GreeterGrpc.newBlockingStub(channel);
 * }</pre>
 *
 * <p>Only unary methods are carried; a streaming method's call fails with {@code UNIMPLEMENTED} before anything
 * is sent. Deadlines, cancellation, headers, trailers and statuses behave as over gRPC-java's HTTP/2 transport;
 * {@code gzip} is the one message compression ({@code withCompression("gzip")} on a stub). Homa failures map to
 * gRPC statuses: DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE (the server stopped answering, or nothing listens),
 * RESOURCE_EXHAUSTED (a limit, or a message over Homa's {@code maxMessageBytes}), INTERNAL (a protocol error).
 *
 * <p>Not thread-safe; the channel it builds is.
 */
public final class HomaChannelBuilder {
    /** gRPC-java's default for both limits' message half: 4 MiB. */
    public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 * 1024 * 1024;
    /** gRPC-java's default metadata limit: 8 KiB, counted as gRPC counts it (key + value + 32 per entry). */
    public static final int DEFAULT_MAX_INBOUND_METADATA_SIZE = 8192;

    private final InetSocketAddress server;
    private HomaEndpoint endpoint;
    private Executor executor;
    private int maxInboundMessageSize = DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
    private int maxInboundMetadataSize = DEFAULT_MAX_INBOUND_METADATA_SIZE;
    private final List<ClientInterceptor> interceptors = new ArrayList<>();

    private HomaChannelBuilder(InetSocketAddress server) {
        this.server = server;
    }

    /**
     * A channel to the homa-grpc server at {@code host:port} (resolved now).
     *
     * @param host the server's host name or address
     * @param port the server's Homa (UDP) port
     * @return the builder
     */
    public static HomaChannelBuilder forAddress(String host, int port) {
        return forAddress(new InetSocketAddress(Objects.requireNonNull(host, "host"), port));
    }

    /**
     * A channel to the homa-grpc server at {@code server}.
     *
     * @param server the server's resolved address
     * @return the builder
     * @throws IllegalArgumentException for an unresolved address or port 0
     */
    public static HomaChannelBuilder forAddress(InetSocketAddress server) {
        Objects.requireNonNull(server, "server");
        if (server.isUnresolved() || server.getPort() == 0) {
            throw new IllegalArgumentException("need a resolved address and a port: " + server);
        }
        return new HomaChannelBuilder(server);
    }

    /**
     * Calls from {@code endpoint}, which stays the caller's (the channel neither shuts it down nor closes it);
     * several channels (and a server) may share one endpoint. Without it, the channel makes its own endpoint on
     * an ephemeral port of the address that reaches the server (loopback for a loopback server, any address
     * otherwise) and closes it when it terminates.
     *
     * @param endpoint the endpoint the calls leave from
     * @return this builder
     */
    public HomaChannelBuilder endpoint(HomaEndpoint endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        return this;
    }

    /**
     * Where async and future stubs' callbacks run (blocking stubs run them on the calling thread). Default: a
     * cached thread pool the channel owns, as gRPC-java's default. The executor stays the caller's.
     *
     * @param executor the callback executor
     * @return this builder
     */
    public HomaChannelBuilder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Runs callbacks on the thread that completes the call, usually the endpoint's event loop: no thread hop,
     * the lowest latency, for callbacks that never block.
     *
     * @return this builder
     */
    public HomaChannelBuilder directExecutor() {
        return executor(Runnable::run);
    }

    /**
     * The largest response message accepted (decompressed size too); a larger one fails the call with
     * {@code RESOURCE_EXHAUSTED}. Default 4 MiB. Responses are also bounded by the endpoint's
     * {@code HomaConfig.maxMessageBytes}.
     *
     * @param bytes the limit, positive
     * @return this builder
     */
    public HomaChannelBuilder maxInboundMessageSize(int bytes) {
        this.maxInboundMessageSize = BuilderSupport.positiveLimit("maxInboundMessageSize", bytes);
        return this;
    }

    /**
     * The largest response headers plus trailers accepted, counted as gRPC counts them; more fails the call with
     * {@code INTERNAL}, as over HTTP/2. Default 8 KiB.
     *
     * @param bytes the limit, positive
     * @return this builder
     */
    public HomaChannelBuilder maxInboundMetadataSize(int bytes) {
        this.maxInboundMetadataSize = BuilderSupport.positiveLimit("maxInboundMetadataSize", bytes);
        return this;
    }

    /**
     * Interceptors every call goes through, as with {@link ClientInterceptors#intercept}: the last one given
     * runs first.
     *
     * @param interceptors the interceptors
     * @return this builder
     */
    public HomaChannelBuilder intercept(ClientInterceptor... interceptors) {
        for (ClientInterceptor interceptor : interceptors) {
            this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        }
        return this;
    }

    /**
     * Builds the channel (and its own endpoint, when none was given).
     *
     * @return the channel, ready for calls
     */
    public ManagedChannel build() {
        boolean ownsEndpoint = endpoint == null;
        HomaEndpoint from = ownsEndpoint ? HomaEndpoint.builder().bindAddress(localAddressFor(server)).build()
                : endpoint;
        ExecutorService ownedExecutor = executor == null ? Executors.newCachedThreadPool(
                BuilderSupport.daemonThreads("client")) : null;
        HomaChannel channel = new HomaChannel(from, ownsEndpoint, server,
                executor != null ? executor : ownedExecutor, ownedExecutor, maxInboundMessageSize,
                maxInboundMetadataSize);
        return interceptors.isEmpty() ? channel
                : new InterceptedChannel(channel, ClientInterceptors.intercept(channel, interceptors));
    }

    /** Loopback for a loopback server, else the wildcard address of the server's family. */
    private static InetAddress localAddressFor(InetSocketAddress server) {
        InetAddress address = server.getAddress();
        return address.isLoopbackAddress() ? address : BuilderSupport.wildcard(address instanceof Inet6Address);
    }
}
