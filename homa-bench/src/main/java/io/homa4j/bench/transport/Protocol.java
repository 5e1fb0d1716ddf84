package io.homa4j.bench.transport;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;

/**
 * The transports the bench compares; each starts echo servers and connects clients with the same options. A new
 * transport is one more constant: the command line, {@code compare}'s loopback and rack runs and the reports take
 * every constant by its {@link #id()}.
 */
public enum Protocol {
    HOMA {
        @Override
        public BenchServer startServer(TransportOptions options) {
            return HomaTransport.startServer(options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
            return HomaTransport.connect(servers, options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options, BenchServer local) {
            return HomaTransport.connect(servers, options, local);
        }
    },
    TCP {
        @Override
        public BenchServer startServer(TransportOptions options) {
            return TcpEchoServer.start(options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
            return TcpBenchClient.connect(servers, options);
        }
    },
    /** gRPC-java unary calls over Homa ({@code homa-grpc}). */
    GRPC_HOMA {
        @Override
        public BenchServer startServer(TransportOptions options) {
            return GrpcTransport.startHomaServer(options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
            return GrpcTransport.connectHoma(servers, options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options, BenchServer local) {
            return GrpcTransport.connectHoma(servers, options, local);
        }
    },
    /** gRPC-java over its own Netty HTTP/2 transport, as services run it now. */
    GRPC_TCP {
        @Override
        public BenchServer startServer(TransportOptions options) {
            return GrpcTransport.startTcpServer(options);
        }

        @Override
        public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
            return GrpcTransport.connectTcp(servers, options);
        }
    };

    /** Starts an echo server; throws {@link IllegalStateException} when it cannot bind. */
    public abstract BenchServer startServer(TransportOptions options);

    /** A client of {@code servers}; TCP connects eagerly and throws {@link IllegalStateException} on failure. */
    public abstract BenchClient connect(List<InetSocketAddress> servers, TransportOptions options);

    /**
     * A client of {@code servers} in the process that runs {@code local}, an echo server of this protocol: Homa
     * sends from the server's endpoint (one transport instance per host, as the Linux module has); TCP's
     * connections are the host kernel's either way, so it connects as {@link #connect(List, TransportOptions)}.
     * Closing the client leaves {@code local} serving. With {@code local} null, the same as
     * {@link #connect(List, TransportOptions)}.
     */
    public BenchClient connect(List<InetSocketAddress> servers, TransportOptions options, BenchServer local) {
        return connect(servers, options);
    }

    /** True for the protocols Homa carries (Homa's link rate and RTT settings apply to them). */
    public boolean overHoma() {
        return this == HOMA || this == GRPC_HOMA;
    }

    /** Lower-case name with dashes ({@code grpc-homa}), as on the command line and in the CSV files. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The name on the command line: {@link #id()}. */
    @Override
    public String toString() {
        return id();
    }
}
