package io.homa4j.core;

/** Why an RPC ended without a response. The public API's {@code HomaException} carries the same codes. */
public enum ErrorCode {
    /** The call's deadline passed before the response arrived. */
    DEADLINE_EXCEEDED,
    /** The call was aborted locally or the endpoint closed. */
    CANCELLED,
    /** The server stopped answering (no packets for the abort timeout) or lost the RPC's state. */
    UNAVAILABLE,
    /** A configured limit (outstanding RPCs, buffered bytes) was reached. */
    RESOURCE_EXHAUSTED,
    /** The request or response is longer than {@link HomaConfig#maxMessageBytes()}. */
    MESSAGE_TOO_LARGE,
    /** The server's handler failed; the message is the server's description. */
    HANDLER_ERROR,
    /** The peer broke the protocol (inconsistent lengths, for example). */
    PROTOCOL_ERROR,
    /**
     * The caller's own argument was unusable: a request buffer already released, or released or changed while
     * the endpoint was still sending it. Local only (never on the wire); only that call fails.
     */
    INVALID_ARGUMENT
}
