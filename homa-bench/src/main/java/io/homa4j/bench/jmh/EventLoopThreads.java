package io.homa4j.bench.jmh;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * JMH's worker threads as Netty {@code FastThreadLocalThread}s, the kind of thread an endpoint's event loop is,
 * for benchmarks that drive an engine directly ({@code -Djmh.executor=CUSTOM
 * -Djmh.executor.class=io.homa4j.bench.jmh.EventLoopThreads}).
 *
 * <p>Why it matters: Netty 4.2's {@code Recycler} keeps released objects only for {@code FastThreadLocalThread}s.
 * On JMH's plain threads every pooled {@code ByteBuf} is a new object (about 96 bytes with its reference count),
 * so an engine benchmark run there measures an allocation per packet that the event loop does not make.
 */
public final class EventLoopThreads extends ThreadPoolExecutor {
    /** The constructor JMH's CUSTOM executor type calls. */
    public EventLoopThreads(int threads, String prefix) {
        super(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                new DefaultThreadFactory(prefix, true));
    }
}
