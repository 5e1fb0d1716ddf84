package io.homa4j;

import io.homa4j.core.ErrorCode;

import java.util.Objects;

/**
 * Why a call failed. Every failed {@link HomaEndpoint#call} future completes exceptionally with one of these
 * (cancellation by the caller excepted, which yields the usual {@link java.util.concurrent.CancellationException}).
 *
 * <p>Thread-safe (immutable).
 */
public class HomaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final boolean retrySafe;

    public HomaException(ErrorCode code, String message, boolean retrySafe) {
        this(code, message, retrySafe, null);
    }

    public HomaException(ErrorCode code, String message, boolean retrySafe, Throwable cause) {
        super(Objects.requireNonNull(code, "code") + ": " + message, cause);
        this.code = code;
        this.retrySafe = retrySafe;
    }

    /** The reason the call failed. */
    public ErrorCode code() {
        return code;
    }

    /**
     * True when the server provably never received the whole request, so its handler cannot have run and
     * retrying cannot execute the request twice.
     */
    public boolean isRetrySafe() {
        return retrySafe;
    }
}
