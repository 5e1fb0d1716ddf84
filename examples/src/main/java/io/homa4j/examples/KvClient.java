package io.homa4j.examples;

import io.homa4j.CallOptions;
import io.homa4j.HomaEndpoint;
import io.homa4j.Metadata;
import io.homa4j.RpcResponse;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The service's client: asynchronous lookups with a deadline and a trace header. */
public final class KvClient {
    /** A value and the trace header the server sent back. */
    public record Value(byte[] bytes, String traceparent) {
    }

    private final HomaEndpoint endpoint;
    private final InetSocketAddress server;

    public KvClient(HomaEndpoint endpoint, InetSocketAddress server) {
        this.endpoint = endpoint;
        this.server = server;
    }

    /** Looks {@code key} up; cancelling the returned future cancels the RPC. */
    public CompletableFuture<Value> get(String key, Duration deadline, String traceparent) {
        CallOptions options = CallOptions.timeout(deadline).withMetadata(Metadata.of("traceparent", traceparent));
        CompletableFuture<RpcResponse> call = endpoint.callForResponse(server,
                Unpooled.copiedBuffer(key, StandardCharsets.UTF_8), options);
        CompletableFuture<Value> result = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                call.cancel(mayInterruptIfRunning); // aborts the RPC and frees its state in the engine
                return super.cancel(mayInterruptIfRunning);
            }
        };
        call.whenComplete((response, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(value(response)); // the response is released even if nobody waits any more
            }
        });
        return result;
    }

    private static Value value(RpcResponse r) {
        try (r) {
            return new Value(ByteBufUtil.getBytes(r.payload()), r.metadata().get("traceparent"));
        }
    }
}
