package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The warm-up {@link HomaEndpointBuilder#warmUpCalls} asks for: before the endpoint is handed to the application,
 * it makes echo calls to a temporary endpoint on its own address, so the JIT compiles the code of a call (the client
 * side in this endpoint, the server side in the temporary one: the same classes and methods) before the first real
 * call. Without it, a lightly loaded service's first thousands of calls run interpreted or in C1 code, several
 * times slower than compiled code.
 *
 * <p>Most calls are small. One in {@link #LARGE_EVERY} is large ({@link #LARGE_REQUEST_BYTES}, or the largest
 * message the config allows): a long message takes another path, packet by packet, with GRANTs, and a quiet service
 * makes too few long calls for the JIT to compile it on its own.
 *
 * <p>Best effort: a warm-up call that fails or times out ends the warm-up (logged at debug), and the endpoint is
 * returned as it is. The calls count in the endpoint's metrics like any other.
 */
final class EndpointWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointWarmUp.class);
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

    private EndpointWarmUp() {
    }

    /** {@code bound} itself, or on the loopback address when it is the wildcard address (not a destination). */
    static InetSocketAddress reachable(InetSocketAddress bound) {
        return bound.getAddress().isAnyLocalAddress()
                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort()) : bound;
    }

    /** Makes {@code calls} echo calls from {@code endpoint} to a temporary endpoint on its address; then closes it. */
    static void run(HomaEndpoint endpoint, int calls) {
        HomaEndpoint echo;
        try {
            echo = HomaEndpoint.builder()
                    .bindAddress(endpoint.localAddress().getAddress())
                    .port(0)
                    .config(endpoint.config())
                    .warmUpCalls(0)
                    .build();
        } catch (RuntimeException e) {
            LOG.debug("no warm-up: the temporary endpoint could not be built", e);
            return;
        }
        ByteBuf request = Unpooled.directBuffer(REQUEST_BYTES).writeZero(REQUEST_BYTES);
        int largeBytes = Math.min(LARGE_REQUEST_BYTES, endpoint.config().maxMessageBytes());
        ByteBuf largeRequest = Unpooled.directBuffer(largeBytes).writeZero(largeBytes);
        List<CompletableFuture<ByteBuf>> group = new ArrayList<>(IN_FLIGHT);
        int answered = 0; // calls of the current group whose response was taken and released
        try {
            echo.serve((ctx, body) -> ctx.reply(body.retain()));
            InetSocketAddress target = reachable(echo.localAddress());
            for (int done = 0; done < calls; done += group.size()) {
                group.clear();
                answered = 0;
                for (int i = 0; i < Math.min(IN_FLIGHT, calls - done); i++) {
                    boolean large = (done + i) % LARGE_EVERY == LARGE_EVERY - 1;
                    group.add(endpoint.call(target, (large ? largeRequest : request).retainedDuplicate()));
                }
                for (CompletableFuture<ByteBuf> call : group) {
                    call.get(GROUP_TIMEOUT_SECONDS, TimeUnit.SECONDS).release();
                    answered++;
                }
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
            echo.close();
        }
    }
}
