package io.homa4j;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * One server-side RPC, given to an {@link RpcHandler}. Exactly one of {@link #reply(ByteBuf)},
 * {@link #reply(byte[])} or {@link #fail(String)} may be called, once, from any thread; a second one throws
 * {@link IllegalStateException} (releasing a buffer passed to it).
 *
 * <p>Replying after the RPC died (the client cancelled, or the endpoint closed) is a silent no-op that still
 * releases the buffer.
 */
public interface RpcContext {

    /** The caller's address. */
    InetSocketAddress client();

    /** Sends {@code response} (may be empty) to the caller; takes ownership of it. */
    void reply(ByteBuf response);

    /** Sends a copy-free wrap of {@code response}; the array must not be modified afterwards. */
    void reply(byte[] response);

    /** Fails the RPC: the caller's future completes with {@code HomaException(HANDLER_ERROR, message)}. */
    void fail(String message);

    /** True once a reply or failure was given. */
    boolean isReplied();

    /**
     * True once nobody waits for this RPC's reply any more: the client gave the call up (cancelled it, its deadline
     * passed) and told the server, the handler ran past the server's handler timeout
     * ({@code HomaConfig.handlerTimeoutTicks}; the client got DEADLINE_EXCEEDED), or the endpoint closed. A
     * reply after that is dropped and counted ({@code MetricsSnapshot.deadHandleReplies}). A handler doing long
     * work should check it, or use {@link #onCancel}, and stop. Thread-safe.
     */
    boolean isCancelled();

    /**
     * Runs {@code callback} once when the RPC becomes cancelled (see {@link #isCancelled()}), on the endpoint's
     * event loop (so it must not block); at once, on this thread, when it already is. Never runs for an RPC that
     * was replied to before it was cancelled. Thread-safe.
     */
    void onCancel(Runnable callback);
}
