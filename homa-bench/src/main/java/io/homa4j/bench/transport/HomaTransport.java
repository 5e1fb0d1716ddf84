package io.homa4j.bench.transport;

import io.homa4j.HomaEndpoint;
import io.homa4j.TransportType;
import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Homa side of the comparison: {@link HomaEndpoint}s (one event-loop thread each) configured for the bench's
 * link rate, RTT and maximum message length. The server echoes every request.
 */
public final class HomaTransport {
    private HomaTransport() {
    }

    static HomaConfig config(TransportOptions options) {
        return HomaConfig.builder()
                .linkMbps(options.linkMbps())
                .linkFramingBytes(options.linkFramingBytes())
                .rttMicros(options.rttMicros())
                .maxMessageBytes(Math.max(options.maxMessage(), 1))
                .build();
    }

    public static BenchServer startServer(TransportOptions options) {
        HomaConfig config = config(options);
        HomaEndpoint endpoint = HomaEndpoint.builder()
                .bindAddress(options.bindAddress())
                .port(options.port())
                .config(config)
                .transport(TransportType.AUTO)
                .build();
        endpoint.serve((ctx, request) -> ctx.reply(request.retain()));
        return new HomaServer(endpoint);
    }

    /** The echo server's endpoint, which a client in the same process may share (see {@link #connect}). */
    private static final class HomaServer implements BenchServer {
        private final HomaEndpoint endpoint;

        HomaServer(HomaEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public InetSocketAddress localAddress() {
            return endpoint.localAddress();
        }

        @Override
        public String describe() {
            return "homa echo server on " + endpoint.localAddress() + " (" + endpoint.config() + ")";
        }

        @Override
        public String statistics() {
            return "homa server transport: " + endpoint.transportStats() + System.lineSeparator()
                    + "homa server engine: " + endpoint.metrics();
        }

        @Override
        public void close() {
            endpoint.close();
        }
    }

    public static BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
        return connect(servers, options, null);
    }

    /**
     * A client; with {@code local} a Homa echo server of this process, its calls go out of that server's endpoint,
     * as on a Homa host, where one transport instance carries the host's requests and responses alike: one pacer
     * and one SRPT order for everything the host sends, one grant scheduler for everything it receives. The
     * client's {@code close} then leaves the endpoint to the server.
     */
    public static BenchClient connect(List<InetSocketAddress> servers, TransportOptions options, BenchServer local) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no servers");
        }
        boolean shared = local instanceof HomaServer;
        HomaEndpoint endpoint = shared ? ((HomaServer) local).endpoint : HomaEndpoint.builder()
                .bindAddress(options.bindAddress())
                .port(0)
                .config(config(options))
                .transport(TransportType.AUTO)
                .build();
        InetSocketAddress[] targets = servers.toArray(new InetSocketAddress[0]);
        return new BenchClient() {
            @Override
            public CompletableFuture<Integer> call(int server, ByteBuf request) {
                return endpoint.call(targets[server], request).thenApply(response -> {
                    int length = response.readableBytes();
                    response.release();
                    return length;
                });
            }

            @Override
            public int servers() {
                return targets.length;
            }

            @Override
            public String statistics() {
                // a shared endpoint's counters are the server's too; it reports them
                return shared ? "" : "homa client transport: " + endpoint.transportStats() + System.lineSeparator()
                        + "homa client engine: " + endpoint.metrics();
            }

            @Override
            public String describe() {
                return "homa client on " + endpoint.localAddress() + (shared ? ", the echo server's endpoint" : "")
                        + " (" + endpoint.config() + ")";
            }

            @Override
            public void close() {
                if (!shared) {
                    endpoint.close();
                }
            }
        };
    }
}
