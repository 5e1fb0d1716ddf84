package io.homa4j;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * One server-side RPC, given to an {@link RpcHandler}. Exactly one of the {@code reply} and {@code fail} methods
 * may be called, once, from any thread; a second one throws {@link IllegalStateException} (releasing a buffer
 * passed to it).
 *
 * <p>Replying after the RPC died (the client cancelled, or the endpoint closed) is a silent no-op that still
 * releases the buffer.
 */
public interface RpcContext {

    /** @return the caller's address */
    InetSocketAddress client();

    /** @return the headers the caller sent with the request ({@link CallOptions#withMetadata}); empty for none */
    Metadata metadata();

    /**
     * The caller's deadline, on this JVM's {@link System#nanoTime()} clock: the time the caller had left when it
     * sent the request, counted from the request's delivery here (so the transfer time of the request is not
     * subtracted). {@code Long.MAX_VALUE} when the call has no deadline.
     *
     * @return the deadline, or {@code Long.MAX_VALUE}
     */
    long deadlineNanos();

    /**
     * @return the time left until {@link #deadlineNanos()} (negative once it passed), or {@code Long.MAX_VALUE}
     *         when the call has no deadline
     */
    default long remainingNanos() {
        long deadline = deadlineNanos();
        return deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
    }

    /**
     * Sends {@code response} (may be empty) to the caller; takes ownership of it.
     *
     * @param response the response payload
     */
    void reply(ByteBuf response);

    /**
     * Sends {@code response} with response headers; takes ownership of the buffer.
     *
     * @param response the response payload
     * @param metadata the response's headers (the caller reads them from {@link RpcResponse#metadata()})
     */
    void reply(ByteBuf response, Metadata metadata);

    /**
     * Sends a copy-free wrap of {@code response}; the array must not be modified afterwards.
     *
     * @param response the response payload
     */
    void reply(byte[] response);

    /**
     * Fails the RPC: the caller's future completes with {@code HomaException(HANDLER_ERROR, message)}.
     *
     * @param message the description the caller gets
     */
    void fail(String message);

    /**
     * Fails the RPC with an application status: the caller gets a {@link HomaException} with code
     * {@code HANDLER_ERROR}, {@link HomaException#applicationStatus()} {@code status} and this message.
     *
     * @param status  the application's status code, not 0 (0 means success)
     * @param message the description the caller gets (at most 4,096 bytes of UTF-8 are sent)
     * @throws IllegalArgumentException when {@code status} is 0
     */
    default void fail(int status, String message) {
        fail(status, message, Metadata.EMPTY);
    }

    /**
     * Fails the RPC with an application status and response headers ({@link HomaException#metadata()}).
     *
     * @param status   the application's status code, not 0 (0 means success)
     * @param message  the description the caller gets (at most 4,096 bytes of UTF-8 are sent)
     * @param metadata headers sent with the failure
     * @throws IllegalArgumentException when {@code status} is 0
     */
    void fail(int status, String message, Metadata metadata);

    /** @return true once a reply or failure was given */
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
