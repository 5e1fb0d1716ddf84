package io.homa4j;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The JIT warm-up {@link HomaEndpointBuilder#warmUpCalls} asks for: echo calls between two temporary endpoints on
 * loopback, so that the JIT compiles the code of a call (client side and server side) before the application's
 * first call. Without it, a lightly loaded service runs its first thousands of calls in the interpreter or C1
 * code, several times slower than compiled code, and Homa4J's whole protocol is Java (TCP's is in the kernel).
 *
 * <p>Compiled code belongs to the JVM, not to an endpoint, so a JVM warms up once: the first {@link #ensureWarm}
 * makes the calls and later ones return at once. The temporary endpoints use the same transport (epoll or NIO) and
 * configuration as the endpoint being built, so the same classes and branches run, except that they pace at a
 * loopback rate of at least {@link #MIN_LINK_MBPS}: a warm-up paced at a slow configured link would take minutes.
 * The endpoint being built is not involved: its metrics count only the application's calls.
 *
 * <p>Most calls are small. One in {@link #LARGE_EVERY} is large ({@link #LARGE_REQUEST_BYTES}, or the largest
 * message the config allows): a long message takes another path, packet by packet, with GRANTs, and a quiet service
 * makes too few long calls for the JIT to compile it on its own.
 *
 * <p>Best effort: a warm-up that cannot open its endpoints, a call that fails or times out, or a warm-up that runs
 * past {@link #TIME_LIMIT_NANOS} ends it (logged at debug), and the endpoint is built as it would be without.
 *
 * <p>Threading: {@link #ensureWarm} may be called from any thread; a second caller waits for the first's warm-up.
 */
final class EndpointWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointWarmUp.class);
    /** The warm-up of this JVM, which every builder asks. */
    static final EndpointWarmUp JVM = new EndpointWarmUp(System::nanoTime);

    /** Calls in flight at once: a few, so both event loops turn over without waiting on each other. */
    static final int IN_FLIGHT = 8;
    /** Bytes per warm-up request: a small call, the kind whose latency the JIT decides. */
    static final int REQUEST_BYTES = 100;
    /** Bytes of a large warm-up request: well past the unscheduled bytes, so that GRANTs pace most of it. */
    static final int LARGE_REQUEST_BYTES = 256 * 1024;
    /** Every this-many-th warm-up call is large. */
    static final int LARGE_EVERY = 32;
    /** How long one group of calls may take before the warm-up gives up. */
    static final long GROUP_TIMEOUT_SECONDS = 5;
    /** The warm-up stops after this long, whatever number of calls it was asked for. */
    static final long TIME_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The slowest rate the temporary endpoints pace at, whatever link the configuration describes. */
    static final int MIN_LINK_MBPS = 10_000;

    /** What a warm-up did: calls answered, and how many of them were large. */
    record Result(int calls, int largeCalls) {
        static final Result NONE = new Result(0, 0);
    }

    private final LongSupplier clock;
    private boolean warm;

    /** @param clock the time the {@link #TIME_LIMIT_NANOS} is counted in */
    EndpointWarmUp(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * Makes {@code calls} echo calls between two temporary endpoints of {@code transport} with {@code config},
     * unless this warm-up ran already; then closes them.
     *
     * @return what the warm-up did; {@link Result#NONE} when it ran before or {@code calls} is 0
     */
    synchronized Result ensureWarm(TransportType transport, HomaConfig config, int calls) {
        if (warm || calls <= 0) {
            return Result.NONE;
        }
        warm = true; // a failed warm-up is not tried again: it would fail again, and cost every build its timeout
        return run(transport, config, calls);
    }

    private Result run(TransportType transport, HomaConfig config, int calls) {
        long start = clock.getAsLong();
        HomaConfig fast = config.linkMbps() >= MIN_LINK_MBPS ? config
                : config.toBuilder().linkMbps(MIN_LINK_MBPS).build();
        HomaEndpoint echo = null;
        HomaEndpoint caller = null;
        ByteBuf request = Unpooled.directBuffer(REQUEST_BYTES).writeZero(REQUEST_BYTES);
        int largeBytes = Math.min(LARGE_REQUEST_BYTES, config.maxMessageBytes());
        ByteBuf largeRequest = Unpooled.directBuffer(largeBytes).writeZero(largeBytes);
        List<CompletableFuture<ByteBuf>> group = new ArrayList<>(IN_FLIGHT);
        int answered = 0; // calls of the current group whose response was taken and released
        int done = 0; // calls answered in all
        int large = 0;
        try {
            echo = temporary(transport, fast);
            caller = temporary(transport, fast);
            echo.serve((ctx, body) -> ctx.reply(body.retain()));
            while (done < calls && clock.getAsLong() - start < TIME_LIMIT_NANOS) {
                group.clear();
                answered = 0;
                for (int i = 0; i < Math.min(IN_FLIGHT, calls - done); i++) {
                    boolean isLarge = (done + i) % LARGE_EVERY == LARGE_EVERY - 1;
                    group.add(caller.call(echo.localAddress(), (isLarge ? largeRequest : request).retainedDuplicate()));
                }
                for (CompletableFuture<ByteBuf> call : group) {
                    ByteBuf response = call.get(GROUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    if (response.readableBytes() == largeBytes && largeBytes > REQUEST_BYTES) {
                        large++;
                    }
                    response.release();
                    answered++;
                    done++;
                }
            }
            if (done < calls) {
                LOG.debug("warm-up stopped after {} of {} calls: it took {} s", done, calls,
                        TimeUnit.NANOSECONDS.toSeconds(TIME_LIMIT_NANOS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("warm-up ended early", e);
        } finally {
            // calls still in flight when the warm-up ended early: their responses are released when they come
            for (CompletableFuture<ByteBuf> call : group.subList(answered, group.size())) {
                call.whenComplete((response, failure) -> {
                    if (response != null) {
                        response.release();
                    }
                });
            }
            request.release();
            largeRequest.release();
            if (caller != null) {
                caller.close();
            }
            if (echo != null) {
                echo.close();
            }
        }
        return new Result(done, large);
    }

    private static HomaEndpoint temporary(TransportType transport, HomaConfig config) {
        return HomaEndpoint.builder()
                .bindAddress(InetAddress.getLoopbackAddress())
                .port(0)
                .transport(transport)
                .config(config)
                .warmUpCalls(0)
                .build();
    }
}
