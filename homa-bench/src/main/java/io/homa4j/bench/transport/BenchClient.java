package io.homa4j.bench.transport;

import io.netty.buffer.ByteBuf;

import java.util.concurrent.CompletableFuture;

/**
 * The client side of one transport as the open-loop driver sees it: echo RPCs to a fixed list of servers.
 * Thread-safe: {@link #call} may be invoked from any thread; futures complete on the transport's threads.
 */
public interface BenchClient extends AutoCloseable {
    /**
     * Sends {@code request} (ownership passes to the transport) to server number {@code server} of the list the
     * client was created with. The future completes with the response's length in bytes, or exceptionally.
     */
    CompletableFuture<Integer> call(int server, ByteBuf request);

    /** Number of servers the client talks to. */
    int servers();

    /** One line about how the transport is set up (connections, congestion control, ...), for the logs. */
    String describe();

    /** Transport counters worth a line in the logs after a run (datagrams, drops); empty when there are none. */
    default String statistics() {
        return "";
    }

    /** Fails outstanding calls and releases every resource; idempotent. */
    @Override
    void close();
}
