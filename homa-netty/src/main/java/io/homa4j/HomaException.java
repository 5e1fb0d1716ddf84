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
    private final int applicationStatus;
    private final transient Metadata metadata;

    /**
     * @param code      why the call failed
     * @param message   a description
     * @param retrySafe whether the server provably never ran the handler
     */
    public HomaException(ErrorCode code, String message, boolean retrySafe) {
        this(code, message, retrySafe, null);
    }

    /**
     * @param code      why the call failed
     * @param message   a description
     * @param retrySafe whether the server provably never ran the handler
     * @param cause     the underlying exception, or null
     */
    public HomaException(ErrorCode code, String message, boolean retrySafe, Throwable cause) {
        super(Objects.requireNonNull(code, "code") + ": " + message, cause);
        this.code = code;
        this.retrySafe = retrySafe;
        this.applicationStatus = 0;
        this.metadata = Metadata.EMPTY;
    }

    /**
     * A handler's failure with an application status ({@link RpcContext#fail(int, String, Metadata)}): code
     * {@link ErrorCode#HANDLER_ERROR}, not retry-safe.
     *
     * @param applicationStatus the handler's status, not 0
     * @param message           the handler's description
     * @param metadata          the handler's response metadata
     */
    public HomaException(int applicationStatus, String message, Metadata metadata) {
        super(ErrorCode.HANDLER_ERROR + " (status " + applicationStatus + "): " + message);
        this.code = ErrorCode.HANDLER_ERROR;
        this.retrySafe = false;
        this.applicationStatus = applicationStatus;
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    /** @return the reason the call failed */
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

    /**
     * The application status the server's handler failed the call with ({@link RpcContext#fail(int, String)});
     * 0 when the failure carries none.
     *
     * @return the status, or 0
     */
    public int applicationStatus() {
        return applicationStatus;
    }

    /**
     * The metadata the server's handler sent with its failure; empty when none (and after deserialization).
     *
     * @return the metadata
     */
    public Metadata metadata() {
        return metadata == null ? Metadata.EMPTY : metadata;
    }
}
