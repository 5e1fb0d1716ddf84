package io.homa4j.bench.transport;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;

/** The transports the bench compares; each starts echo servers and connects clients with the same options. */
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
    };

    /** Starts an echo server; throws {@link IllegalStateException} when it cannot bind. */
    public abstract BenchServer startServer(TransportOptions options);

    /** A client of {@code servers}; TCP connects eagerly and throws {@link IllegalStateException} on failure. */
    public abstract BenchClient connect(List<InetSocketAddress> servers, TransportOptions options);

    /** Lower-case name, as on the command line and in the CSV files. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code homa} or {@code tcp}, any case. */
    public static Protocol parse(String s) {
        for (Protocol p : values()) {
            if (p.id().equalsIgnoreCase(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("protocol must be homa or tcp: " + s);
    }
}
