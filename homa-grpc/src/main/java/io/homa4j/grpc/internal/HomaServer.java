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
    private final boolean ownsEndpoint;
    private final Map<String, ServerMethodDefinition<?, ?>> methods;
    private final List<ServerServiceDefinition> services;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final ScheduledExecutorService deadlines;
    private final int maxInboundMessageSize;
    private final int maxInboundMetadataSize;
    private final Set<ServerRpc<?, ?>> inFlight = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private boolean started;
    private boolean shutdown;
    private boolean terminated;

    /**
     * @param ownedExecutor {@code executor} when the server made it and shuts it down, else null
     * @param deadlines     the server's own timer for calls' deadlines, shut down with it
     */
    public HomaServer(HomaEndpoint endpoint, boolean ownsEndpoint, List<ServerServiceDefinition> services,
                      Executor executor, ExecutorService ownedExecutor, ScheduledExecutorService deadlines,
                      int maxInboundMessageSize, int maxInboundMetadataSize) {
        this.endpoint = endpoint;
        this.ownsEndpoint = ownsEndpoint;
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
        this.ownedExecutor = ownedExecutor;
        this.deadlines = deadlines;
        this.maxInboundMessageSize = maxInboundMessageSize;
        this.maxInboundMetadataSize = maxInboundMetadataSize;
    }

    @Override
    public HomaServer start() {
        synchronized (lock) {
            if (started || shutdown) {
                throw new IllegalStateException(shutdown ? "shut down" : "already started");
            }
            started = true;
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
        ServerRpc<?, ?> rpc;
        synchronized (lock) {
            if (shutdown) {
                rpc = null;
            } else {
                rpc = new ServerRpc<>(this, ctx, method, headers, frame.message().retain(), frame.isGzip());
                inFlight.add(rpc);
            }
        }
        if (rpc == null) {
            refuse(ctx, Status.UNAVAILABLE.withDescription("server shutting down"));
            return;
        }
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
        boolean terminate;
        synchronized (lock) {
            terminate = inFlight.remove(rpc) && shutdown && inFlight.isEmpty() && !terminated;
        }
        if (terminate) {
            terminate();
        }
    }

    @Override
    public HomaServer shutdown() {
        boolean terminate;
        synchronized (lock) {
            if (shutdown) {
                return this;
            }
            shutdown = true;
            terminate = inFlight.isEmpty();
        }
        if (terminate) {
            terminate();
        }
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

    private void terminate() {
        synchronized (lock) {
            if (terminated) {
                return;
            }
            terminated = true;
            lock.notifyAll();
        }
        deadlines.shutdownNow();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        if (ownsEndpoint) {
            // shutdown, not close: this may run on the endpoint's event loop; the answers just given still leave.
            endpoint.shutdown(Duration.ofSeconds(5));
        }
    }

    @Override
    public boolean isShutdown() {
        synchronized (lock) {
            return shutdown;
        }
    }

    @Override
    public boolean isTerminated() {
        synchronized (lock) {
            return terminated;
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long end = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!terminated) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
        return !ownsEndpoint || endpoint.awaitTermination(Math.max(0, end - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        synchronized (lock) {
            while (!terminated) {
                lock.wait();
            }
        }
        if (ownsEndpoint) {
            endpoint.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
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
