package io.homa4j.bench.transport;

import io.grpc.CallOptions;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.homa4j.HomaEndpoint;
import io.homa4j.TransportType;
import io.homa4j.grpc.HomaChannelBuilder;
import io.homa4j.grpc.HomaServerBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java in the comparison: one unary echo method, served and called over Homa ({@code homa-grpc}) or over
 * gRPC-java's own Netty HTTP/2 transport ({@code grpc-netty-shaded}), as services run it now. Both sides are set
 * up alike: the echo handler and the client's callbacks run on the transport's event loop ({@code directExecutor},
 * gRPC's advice for handlers that never block), one channel per server (HTTP/2 multiplexes every call of a
 * channel on one TCP connection; a Homa channel needs none), the same byte-array marshaller, a 30 s deadline.
 */
public final class GrpcTransport {
    /** The echo method: the response is the request's bytes. */
    static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("homa4j.bench.Echo", "Echo"))
            .setRequestMarshaller(BytesMarshaller.INSTANCE)
            .setResponseMarshaller(BytesMarshaller.INSTANCE)
            .build();
    private static final long DEADLINE_SECONDS = 30;
    private static final int ENVELOPE_ROOM = 64 * 1024;
    private static final long CLOSE_GRACE_SECONDS = 2;

    private GrpcTransport() {
    }

    static ServerServiceDefinition echoService() {
        return ServerServiceDefinition.builder("homa4j.bench.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .build();
    }

    /** gRPC's limit must pass the bench's longest message (and the marshalling's few bytes more). */
    private static int maxInbound(TransportOptions options) {
        return Math.max(options.maxMessage() + 1024, 4 << 20);
    }

    /**
     * {@link HomaTransport}'s configuration, with room in Homa's message limit for the gRPC envelope around the
     * bench's longest message (method name, headers, status: well under 64 KB).
     */
    private static io.homa4j.core.HomaConfig homaConfig(TransportOptions options) {
        return HomaTransport.config(new TransportOptions(options.bindAddress(), options.port(), options.linkMbps(),
                options.rttMicros(), options.maxMessage() + ENVELOPE_ROOM, options.tcpConnections(),
                options.linkFramingBytes()));
    }

    /** A gRPC echo server over Homa, on an endpoint configured as {@link HomaTransport}'s. */
    static BenchServer startHomaServer(TransportOptions options) {
        HomaEndpoint endpoint = HomaEndpoint.builder()
                .bindAddress(options.bindAddress())
                .port(options.port())
                .config(homaConfig(options))
                .transport(TransportType.AUTO)
                .build();
        Server server = start(HomaServerBuilder.forEndpoint(endpoint).directExecutor()
                .maxInboundMessageSize(maxInbound(options)).addService(echoService()).build());
        return new GrpcServer("grpc-homa", server, endpoint.localAddress(), endpoint);
    }

    /** A gRPC echo server over gRPC-java's Netty HTTP/2 transport. */
    static BenchServer startTcpServer(TransportOptions options) {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(options.bindAddress(), options.port()))
                .directExecutor().maxInboundMessageSize(maxInbound(options)).addService(echoService()).build();
        start(server);
        InetSocketAddress bound = (InetSocketAddress) server.getListenSockets().get(0);
        return new GrpcServer("grpc-tcp", server,
                new InetSocketAddress(options.bindAddress(), bound.getPort()), null);
    }

    private static Server start(Server server) {
        try {
            return server.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the gRPC server: " + e.getMessage(), e);
        }
    }

    /** A client over Homa: one endpoint, a channel per server. */
    static BenchClient connectHoma(List<InetSocketAddress> servers, TransportOptions options) {
        return connectHoma(servers, options, null);
    }

    /**
     * A client over Homa whose channels use the endpoint of {@code local}, a grpc-homa echo server of this
     * process, when given: as with plain Homa ({@link HomaTransport#connect(List, TransportOptions, BenchServer)}),
     * a host's requests and responses then leave through one pacer, in one SRPT order. Two endpoints on one host
     * would each pace to the whole link, and together overrun the host's NIC queue. The client's {@code close}
     * leaves a shared endpoint to the server.
     */
    static BenchClient connectHoma(List<InetSocketAddress> servers, TransportOptions options, BenchServer local) {
        HomaEndpoint shared = local instanceof GrpcServer g ? g.endpoint : null;
        HomaEndpoint endpoint = shared != null ? shared : HomaEndpoint.builder()
                .bindAddress(options.bindAddress())
                .port(0)
                .config(homaConfig(options))
                .transport(TransportType.AUTO)
                .build();
        List<ManagedChannel> channels = new ArrayList<>();
        for (InetSocketAddress server : servers) {
            channels.add(HomaChannelBuilder.forAddress(server).endpoint(endpoint).directExecutor()
                    .maxInboundMessageSize(maxInbound(options)).build());
        }
        return new GrpcClient("grpc-homa client on " + endpoint.localAddress() + (shared != null
                ? ", the echo server's endpoint" : "") + " (" + endpoint.config() + ")", channels,
                shared != null ? null : endpoint);
    }

    /** A client over HTTP/2: a channel (one TCP connection) per server. */
    static BenchClient connectTcp(List<InetSocketAddress> servers, TransportOptions options) {
        List<ManagedChannel> channels = new ArrayList<>();
        for (InetSocketAddress server : servers) {
            channels.add(NettyChannelBuilder.forAddress(server).usePlaintext().directExecutor()
                    .maxInboundMessageSize(maxInbound(options)).build());
        }
        return new GrpcClient("grpc-tcp client, one HTTP/2 channel per server", channels, null);
    }

    private static final class GrpcServer implements BenchServer {
        private final String name;
        private final Server server;
        private final InetSocketAddress address;
        private final HomaEndpoint endpoint;

        GrpcServer(String name, Server server, InetSocketAddress address, HomaEndpoint endpoint) {
            this.name = name;
            this.server = server;
            this.address = address;
            this.endpoint = endpoint;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public String describe() {
            return name + " echo server on " + address + (endpoint != null ? " (" + endpoint.config() + ")" : "");
        }

        @Override
        public String statistics() {
            return endpoint == null ? "" : "grpc-homa server transport: " + endpoint.transportStats()
                    + System.lineSeparator() + "grpc-homa server engine: " + endpoint.metrics();
        }

        @Override
        public void close() {
            // Graceful first: calls still in flight end with their answers, not with a reset stream per call.
            server.shutdown();
            try {
                if (!server.awaitTermination(CLOSE_GRACE_SECONDS, TimeUnit.SECONDS)) {
                    server.shutdownNow();
                    server.awaitTermination(CLOSE_GRACE_SECONDS, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                server.shutdownNow();
                Thread.currentThread().interrupt();
            }
            if (endpoint != null) {
                endpoint.close();
            }
        }
    }

    private static final class GrpcClient implements BenchClient {
        private final String description;
        private final List<ManagedChannel> channels;
        /** The Homa endpoint this client made and closes; null over TCP or on a server's shared endpoint. */
        private final HomaEndpoint endpoint;

        GrpcClient(String description, List<ManagedChannel> channels, HomaEndpoint endpoint) {
            this.description = description;
            this.channels = channels;
            this.endpoint = endpoint;
        }

        @Override
        public CompletableFuture<Integer> call(int server, ByteBuf request) {
            byte[] bytes;
            try {
                bytes = ByteBufUtil.getBytes(request);
            } finally {
                request.release();
            }
            CompletableFuture<Integer> done = new CompletableFuture<>();
            ClientCalls.asyncUnaryCall(channels.get(server).newCall(ECHO,
                    CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)), bytes,
                    new StreamObserver<>() {
                        private int length = -1;

                        @Override
                        public void onNext(byte[] response) {
                            length = response.length;
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {
                            done.complete(length);
                        }
                    });
            return done;
        }

        @Override
        public int servers() {
            return channels.size();
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public String statistics() {
            return endpoint == null ? "" : "grpc-homa client transport: " + endpoint.transportStats()
                    + System.lineSeparator() + "grpc-homa client engine: " + endpoint.metrics();
        }

        @Override
        public void close() {
            for (ManagedChannel channel : channels) {
                channel.shutdown();
            }
            for (ManagedChannel channel : channels) {
                try {
                    if (!channel.awaitTermination(CLOSE_GRACE_SECONDS, TimeUnit.SECONDS)) {
                        channel.shutdownNow(); // calls the driver left unfinished
                        channel.awaitTermination(CLOSE_GRACE_SECONDS, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    channel.shutdownNow();
                    Thread.currentThread().interrupt();
                }
            }
            if (endpoint != null) {
                endpoint.close();
            }
        }
    }

    /**
     * Byte arrays as messages, streamed as protobuf's marshaller streams them (known length, drained straight into
     * the transport's buffer), so both transports marshal alike.
     */
    private enum BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new BytesStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
        BytesStream(byte[] bytes) {
            super(bytes);
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }
}
