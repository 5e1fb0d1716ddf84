package io.homa4j.core;

/**
 * Thrown by {@link HomaEngine#call} when an RPC cannot even start (message too large, too many outstanding
 * RPCs, engine closed). The request buffer has already been released when this is thrown. Nothing was sent,
 * so a rejected call is always safe to retry.
 */
public final class RpcRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ErrorCode code;

    public RpcRejectedException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
