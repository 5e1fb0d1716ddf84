package io.homa4j;

import io.netty.buffer.ByteBuf;

/**
 * Serves requests arriving at an endpoint; see {@link HomaEndpoint#serve(RpcHandler)}.
 *
 * <p>Ownership: {@code request} is released when {@code handle} returns (as with Netty's
 * {@code SimpleChannelInboundHandler}); {@code retain()} it to keep it, for example for an asynchronous reply.
 *
 * <p>Threading: runs on the endpoint's event loop unless an executor was given to {@code serve}; on the event
 * loop it must not block, because it holds up every other RPC of the endpoint.
 */
@FunctionalInterface
public interface RpcHandler {

    /**
     * Handles one request. Reply through {@code ctx}, now or later, from any thread. A handler that throws
     * without having replied makes the caller fail with {@code HANDLER_ERROR} carrying the exception's text.
     */
    void handle(RpcContext ctx, ByteBuf request) throws Exception;
}
