package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One request delivered to a {@link HomaHost}'s {@link RequestHandler}, and the way to answer it exactly once.
 * If the server's engine is replaced before a delayed answer is due, the answer is discarded (released): the
 * state it belonged to is gone. Use on the network's thread only.
 */
public final class SimRequest {
    private final HomaHost server;
    private final HomaHost.Generation generation;
    private final long handle;
    private final InetSocketAddress client;
    private final ByteBuf payload;
    private final long arrivalNanos;
    private boolean answered;

    SimRequest(HomaHost server, HomaHost.Generation generation, long handle, InetSocketAddress client,
               ByteBuf payload, long arrivalNanos) {
        this.server = server;
        this.generation = generation;
        this.handle = handle;
        this.client = client;
        this.payload = payload;
        this.arrivalNanos = arrivalNanos;
    }

    /** The host that received the request. */
    public HomaHost server() { return server; }

    /** The caller's address. */
    public InetSocketAddress client() { return client; }

    /** The request bytes; owned by the handler. */
    public ByteBuf payload() { return payload; }

    /** Virtual time at which the whole request had arrived. */
    public long arrivalNanos() { return arrivalNanos; }

    /** Whether a reply or error has been given (or scheduled). */
    public boolean isAnswered() { return answered; }

    /**
     * Replies now; {@code response} is owned by the engine from here on.
     *
     * @return whether the engine accepted it (false when the RPC is gone, for example after a restart)
     */
    public boolean reply(ByteBuf response) {
        Objects.requireNonNull(response, "response");
        markAnswered(response);
        return server.reply(generation, handle, response);
    }

    /** Replies {@code delayNanos} of virtual time from now (the handler "works" that long). */
    public void replyAfter(long delayNanos, ByteBuf response) {
        Objects.requireNonNull(response, "response");
        markAnswered(response);
        server.replyLater(generation, handle, response, delayNanos);
    }

    /** Fails the RPC now: the client gets HANDLER_ERROR with {@code message}. */
    public boolean replyError(String message) {
        Objects.requireNonNull(message, "message");
        markAnswered(null);
        return server.replyError(generation, handle, message);
    }

    /** Fails the RPC after {@code delayNanos} of virtual time. */
    public void replyErrorAfter(long delayNanos, String message) {
        Objects.requireNonNull(message, "message");
        markAnswered(null);
        server.network().scheduleAfter(delayNanos, () -> server.replyError(generation, handle, message));
    }

    private void markAnswered(ByteBuf response) {
        if (answered) {
            if (response != null) {
                response.release();
            }
            throw new IllegalStateException("request already answered");
        }
        answered = true;
    }
}
