package io.homa4j;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * A call's response with its headers, from {@link HomaEndpoint#callForResponse}. Owns the payload buffer:
 * {@link #close()} releases it (use try-with-resources, or {@link ByteBuf#retain()} the payload to keep it).
 *
 * <p>Not thread-safe: hand it from thread to thread, do not share it.
 */
public final class RpcResponse implements AutoCloseable {
    private final ByteBuf payload;
    private final Metadata metadata;
    private boolean closed;

    RpcResponse(ByteBuf payload, Metadata metadata) {
        this.payload = Objects.requireNonNull(payload, "payload");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    /** @return the response payload; valid until {@link #close()} */
    public ByteBuf payload() {
        return payload;
    }

    /** @return the headers the handler replied with ({@link RpcContext#reply(ByteBuf, Metadata)}) */
    public Metadata metadata() {
        return metadata;
    }

    /** Releases the payload; once (further calls do nothing). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            payload.release();
        }
    }

    @Override
    public String toString() {
        return "RpcResponse{" + payload.readableBytes() + " bytes, " + metadata + '}';
    }
}
