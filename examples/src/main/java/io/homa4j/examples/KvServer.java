package io.homa4j.examples;

import io.homa4j.HomaEndpoint;
import io.homa4j.Metadata;
import io.homa4j.RpcContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A key-value lookup service over Homa: the request is a key (UTF-8), the response its value. Missing keys fail
 * with application status {@link #NOT_FOUND}; a lookup that cannot finish before the caller's deadline fails
 * with {@link #NO_TIME}; the caller's {@code traceparent} header comes back in the response's headers.
 */
public final class KvServer implements AutoCloseable {
    public static final int NOT_FOUND = 404;
    public static final int NO_TIME = 504;

    private final Map<String, byte[]> values = new ConcurrentHashMap<>();
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final HomaEndpoint endpoint;
    private volatile long lookupNanos;
    private volatile Runnable onLookup = () -> { };

    public KvServer(HomaEndpoint endpoint) {
        this.endpoint = endpoint;
        endpoint.serve(this::handle, workers);
    }

    public HomaEndpoint endpoint() {
        return endpoint;
    }

    public void put(String key, byte[] value) {
        values.put(key, value);
    }

    /** Runs {@code hook} as each lookup starts (tests and tracing). */
    public void onLookup(Runnable hook) {
        onLookup = hook;
    }

    /** Makes every lookup take this long (a slow store), to show deadlines at work. */
    public void lookupTime(Duration d) {
        lookupNanos = d.toNanos();
    }

    private void handle(RpcContext ctx, ByteBuf request) throws InterruptedException {
        String key = request.toString(StandardCharsets.UTF_8);
        long cost = lookupNanos;
        if (ctx.remainingNanos() < cost) {
            ctx.fail(NO_TIME, "the lookup takes longer than the caller's deadline allows");
            return;
        }
        onLookup.run();
        if (cost > 0) {
            TimeUnit.NANOSECONDS.sleep(cost); // the slow store being modelled
        }
        byte[] value = values.get(key);
        if (value == null) {
            ctx.fail(NOT_FOUND, "no key " + key);
            return;
        }
        String trace = ctx.metadata().get("traceparent");
        ctx.reply(Unpooled.wrappedBuffer(value), trace == null ? Metadata.EMPTY : Metadata.of("traceparent", trace));
    }

    /** Graceful: lookups in flight finish (within the grace period), new ones are refused. */
    public boolean shutdown(Duration grace) throws InterruptedException {
        endpoint.shutdown(grace);
        boolean done = endpoint.awaitTermination(grace.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        workers.shutdown();
        return done;
    }

    @Override
    public void close() {
        endpoint.close();
        workers.shutdownNow();
    }
}
