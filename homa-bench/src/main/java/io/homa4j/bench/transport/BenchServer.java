package io.homa4j.bench.transport;

import java.net.InetSocketAddress;

/** A running echo server: every request is answered with a response of the same bytes. Thread-safe. */
public interface BenchServer extends AutoCloseable {
    InetSocketAddress localAddress();

    /** One line about how the server is set up, for the logs. */
    String describe();

    /** Transport counters worth a line in the logs after a run (datagrams, drops); empty when there are none. */
    default String statistics() {
        return "";
    }

    /** Stops serving and releases every resource; idempotent. */
    @Override
    void close();
}
