package io.homa4j.grpc.internal;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.homa4j.HomaEndpoint;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The client side: a {@link io.grpc.ManagedChannel} whose unary calls are Homa RPCs to one server address.
 * Streaming methods are refused with UNIMPLEMENTED before anything is sent. Built by
 * {@code io.homa4j.grpc.HomaChannelBuilder}.
 *
 * <p>Lifecycle: {@link #shutdown()} refuses new calls and lets those in flight end; the channel terminates when
 * the last one has. An endpoint the builder made is the channel's own and is closed then; one given to the
 * builder stays open. {@link #shutdownNow()} also cancels the calls in flight (closing an owned endpoint).
 */
public final class HomaChannel extends io.grpc.ManagedChannel {
    /** The request header that names the message encoding, as gRPC's HTTP/2 transport sends it. */
    static final Metadata.Key<String> MESSAGE_ENCODING =
            Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

    private final HomaEndpoint endpoint;
    private final InetSocketAddress server;
    private final String authority;
    private final Executor executor;
    private final int maxInboundMessageSize;
    private final int maxInboundMetadataSize;
    private final Lifecycle lifecycle;

    /**
     * @param ownedExecutor {@code executor} when the channel made it and shuts it down, else null
     */
    public HomaChannel(HomaEndpoint endpoint, boolean ownsEndpoint, InetSocketAddress server, Executor executor,
                       ExecutorService ownedExecutor, int maxInboundMessageSize, int maxInboundMetadataSize) {
        this.endpoint = endpoint;
        this.server = server;
        this.authority = server.getHostString() + ":" + server.getPort();
        this.executor = executor;
        this.maxInboundMessageSize = maxInboundMessageSize;
        this.maxInboundMetadataSize = maxInboundMetadataSize;
        this.lifecycle = new Lifecycle(ownsEndpoint ? endpoint : null, Duration.ZERO, ownedExecutor, () -> { });
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method,
                                                         CallOptions callOptions) {
        Executor callExecutor = callOptions.getExecutor() != null ? callOptions.getExecutor() : executor;
        if (method.getType() != MethodDescriptor.MethodType.UNARY) {
            return new RefusedCall<>(callExecutor, Status.UNIMPLEMENTED.withDescription(
                    "homa-grpc carries unary calls only; " + method.getFullMethodName() + " is "
                            + method.getType()));
        }
        return new HomaClientCall<>(this, method, callOptions, callExecutor);
    }

    @Override
    public String authority() {
        return authority;
    }

    HomaEndpoint endpoint() {
        return endpoint;
    }

    InetSocketAddress server() {
        return server;
    }

    int maxInboundMessageSize(CallOptions callOptions) {
        Integer perCall = callOptions.getMaxInboundMessageSize();
        return perCall != null ? perCall : maxInboundMessageSize;
    }

    int maxInboundMetadataSize() {
        return maxInboundMetadataSize;
    }

    /** Counts a call in flight; false once shut down. */
    boolean callStarted() {
        return lifecycle.enter();
    }

    void callEnded() {
        lifecycle.exit();
    }

    @Override
    public io.grpc.ManagedChannel shutdown() {
        lifecycle.shutdown();
        return this;
    }

    @Override
    public io.grpc.ManagedChannel shutdownNow() {
        shutdown();
        lifecycle.closeOwnedEndpoint(); // cancels the calls in flight; an endpoint of the application's stays open
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
    public String toString() {
        return "HomaChannel{" + authority + " over " + endpoint + '}';
    }

    /** A call refused before it starts: the listener hears {@code status} and nothing is sent. */
    private static final class RefusedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
        private final Executor executor;
        private final Status status;

        RefusedCall(Executor executor, Status status) {
            this.executor = executor;
            this.status = status;
        }

        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
            executor.execute(() -> listener.onClose(status, new Metadata()));
        }

        @Override
        public void request(int numMessages) {
        }

        @Override
        public void cancel(String message, Throwable cause) {
        }

        @Override
        public void halfClose() {
        }

        @Override
        public void sendMessage(ReqT message) {
        }
    }
}
