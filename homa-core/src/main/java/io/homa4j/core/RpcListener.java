package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * The engine's upcalls to the application layer. Invoked synchronously on the engine's thread, from inside
 * {@link HomaEngine#onPacket}, {@link HomaEngine#poll} or {@link HomaEngine#close}; implementations must not
 * block, and may call back into the engine (for example {@link HomaEngine#reply} from {@link #onRequest}).
 */
public interface RpcListener {

    /**
     * A whole request message arrived and should be handled once.
     *
     * @param serverHandle engine-local handle of this server RPC; pass it to {@link HomaEngine#reply} or
     *                     {@link HomaEngine#replyError}. Stays valid until the reply is given or the RPC is
     *                     dropped (client aborted or state expired); replying to a dead handle is a counted no-op.
     * @param client       the caller's address
     * @param request      the request payload; ownership passes to the listener, which must release it
     */
    void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request);

    /**
     * The response of a client RPC started with {@link HomaEngine#call} arrived whole.
     *
     * @param rpcId    the id returned by {@code call}
     * @param response the response payload; ownership passes to the listener, which must release it
     */
    void onResponse(long rpcId, ByteBuf response);

    /**
     * A client RPC ended without a response. Called at most once per RPC, and never after {@link #onResponse}
     * for the same id. Not called for RPCs ended by {@link HomaEngine#abort}.
     */
    void onCallFailed(long rpcId, RpcFailure failure);

    /**
     * A request delivered by {@link #onRequest} and not yet answered will not be answered any more: the client
     * abandoned the call (code CANCELLED: it cancelled, its deadline passed, or it failed the call otherwise), or
     * the handler exceeded {@link HomaConfig#handlerTimeoutTicks()} (code DEADLINE_EXCEEDED; the client was sent
     * that error). The handle is dead from now on: a later reply is dropped and counted
     * ({@code deadHandleReplies}). The default does nothing.
     */
    default void onRequestAbandoned(long serverHandle, RpcFailure why) {
    }
}
