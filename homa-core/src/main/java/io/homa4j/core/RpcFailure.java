package io.homa4j.core;

import java.util.Objects;

/**
 * How a client RPC failed.
 *
 * @param code      the reason
 * @param message   a human-readable description (the server's text for {@link ErrorCode#HANDLER_ERROR})
 * @param retrySafe true when the server provably never received the whole request, so the handler cannot
 *                  have run and a retry cannot execute it twice
 */
public record RpcFailure(ErrorCode code, String message, boolean retrySafe) {
    public RpcFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }
}
