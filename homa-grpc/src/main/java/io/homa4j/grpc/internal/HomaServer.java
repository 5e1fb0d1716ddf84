package io.homa4j.grpc.internal;

import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.homa4j.HomaEndpoint;
import io.homa4j.RpcContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server side: serves gRPC services' unary methods on a {@link HomaEndpoint}, one Homa RPC per call. Built by
 * {@code io.homa4j.grpc.HomaServerBuilder}.
 *
 * <p>The endpoint's handler runs on its event loop: it checks the frame, finds the method and refuses what it
 * cannot serve (a malformed frame: INTERNAL; an unknown method: UNIMPLEMENTED; a streaming method: UNIMPLEMENTED;
 * headers or a message over the limits), answering at once; everything else goes to the call executor, where the
 * message is parsed and the application's handler runs ({@link ServerRpc}).
 *
 * <p>Lifecycle: {@link #shutdown()} refuses new calls with UNAVAILABLE and lets those in flight finish;
 * {@link #shutdownNow()} also cancels them. An endpoint the builder made is the server's own and shuts down with
 * it; one given to the builder stays open.
 */
public final class HomaServer extends io.grpc.Server {
    private final HomaEndpoint endpoint;
    private final Map<String, ServerMethodDefinition<?, ?>> methods;
    private final List<ServerServiceDefinition> services;
    private final Executor executor;
    private final ScheduledExecutorService deadlines;
    private final int maxInboundMessageSize;
    private final int maxInboundMetadataSize;
    /** The calls {@link #shutdownNow} cancels. */
    private final Set<ServerRpc<?, ?>> inFlight = ConcurrentHashMap.newKeySet();
    private final Lifecycle lifecycle;
    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * @param ownedExecutor {@code executor} when the server made it and shuts it down, else null
     * @param deadlines     the server's own timer for calls' deadlines, shut down with it
     */
    public HomaServer(HomaEndpoint endpoint, boolean ownsEndpoint, List<ServerServiceDefinition> services,
                      Executor executor, ExecutorService ownedExecutor, ScheduledExecutorService deadlines,
                      int maxInboundMessageSize, int maxInboundMetadataSize) {
        this.endpoint = endpoint;
        this.services = List.copyOf(services);
        Map<String, ServerMethodDefinition<?, ?>> byName = new ConcurrentHashMap<>();
        for (ServerServiceDefinition service : services) {
            for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
                if (byName.putIfAbsent(method.getMethodDescriptor().getFullMethodName(), method) != null) {
                    throw new IllegalArgumentException("method served twice: "
                            + method.getMethodDescriptor().getFullMethodName());
                }
            }
        }
        this.methods = Map.copyOf(byName);
        this.executor = executor;
        this.deadlines = deadlines;
        this.maxInboundMessageSize = maxInboundMessageSize;
        this.maxInboundMetadataSize = maxInboundMetadataSize;
        // the endpoint's grace: the answers just given still leave
        this.lifecycle = new Lifecycle(ownsEndpoint ? endpoint : null, Duration.ofSeconds(5), ownedExecutor,
                deadlines::shutdownNow);
    }

    @Override
    public HomaServer start() {
        if (lifecycle.isShutdown() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(lifecycle.isShutdown() ? "shut down" : "already started");
        }
        endpoint.serve(this::handle);
        return this;
    }

    /** The endpoint's handler: event loop. Answers what it refuses; hands the rest to a {@link ServerRpc}. */
    private void handle(RpcContext ctx, ByteBuf request) {
        GrpcFrame frame = new GrpcFrame();
        String problem = frame.wrap(request);
        if (problem == null && frame.kind() != GrpcFrame.KIND_REQUEST) {
            problem = "a response frame sent as a request";
        }
        if (problem != null) {
            refuse(ctx, Status.INTERNAL.withDescription("malformed homa-grpc request: " + problem));
            return;
        }
        String name = frame.text();
        ServerMethodDefinition<?, ?> method = methods.get(name);
        if (method == null) {
            refuse(ctx, Status.UNIMPLEMENTED.withDescription("Method not found: " + name));
            return;
        }
        MethodDescriptor.MethodType type = method.getMethodDescriptor().getType();
        if (type != MethodDescriptor.MethodType.UNARY) {
            refuse(ctx, Status.UNIMPLEMENTED.withDescription("homa-grpc serves unary methods only; " + name
                    + " is " + type));
            return;
        }
        long headersSize = frame.headersSize();
        if (headersSize > maxInboundMetadataSize) {
            refuse(ctx, Status.INTERNAL.withDescription("Header size " + headersSize
                    + " exceeded max allowed size (" + maxInboundMetadataSize + ")"));
            return;
        }
        if (frame.messageLength() > maxInboundMessageSize) {
            refuse(ctx, MessageCodec.tooLarge(frame.messageLength(), maxInboundMessageSize).getStatus());
            return;
        }
        io.grpc.Metadata headers;
        try {
            headers = frame.headers();
        } catch (GrpcFrame.MalformedFrameException e) {
            refuse(ctx, Status.INTERNAL.withDescription("malformed homa-grpc request: " + e.getMessage()));
            return;
        }
        if (!lifecycle.enter()) {
            refuse(ctx, Status.UNAVAILABLE.withDescription("server shutting down"));
            return;
        }
        ServerRpc<?, ?> rpc = new ServerRpc<>(this, ctx, method, headers, frame.message().retain(), frame.isGzip());
        inFlight.add(rpc);
        rpc.start(executor);
    }

    private static void refuse(RpcContext ctx, Status status) {
        ctx.reply(GrpcFrame.encodeStatus(ByteBufAllocator.DEFAULT, status));
    }

    int maxInboundMessageSize() {
        return maxInboundMessageSize;
    }

    ScheduledExecutorService deadlines() {
        return deadlines;
    }

    /** The call's answer went out (or it was cancelled): no longer in flight. */
    void callEnded(ServerRpc<?, ?> rpc) {
        if (inFlight.remove(rpc)) {
            lifecycle.exit();
        }
    }

    @Override
    public HomaServer shutdown() {
        lifecycle.shutdown();
        return this;
    }

    @Override
    public HomaServer shutdownNow() {
        shutdown();
        for (ServerRpc<?, ?> rpc : inFlight) {
            rpc.cancelByServer(Status.UNAVAILABLE.withDescription("server shutdownNow invoked"));
        }
        return this;
    }

    @Override
    public boolean isShutdown() {
        return lifecycle.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return lifecycle.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return lifecycle.awaitTermination(unit.toNanos(timeout));
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        while (!lifecycle.awaitTermination(TimeUnit.DAYS.toNanos(1))) {
            // no end but termination
        }
    }

    @Override
    public int getPort() {
        return endpoint.localAddress().getPort();
    }

    @Override
    public List<? extends SocketAddress> getListenSockets() {
        return List.of(endpoint.localAddress());
    }

    @Override
    public List<ServerServiceDefinition> getServices() {
        return services;
    }

    @Override
    public String toString() {
        return "HomaServer{" + endpoint + ", " + methods.size() + " methods}";
    }
}
