package io.homa4j.transport.internal;

/**
 * The sockets cannot be opened as asked: the native transport does not load, the address or port cannot be bound,
 * or the port is held by other sockets and is not to be joined. The message says which and why; the cause is the
 * underlying error. The endpoint API turns it into its own exception type.
 */
public final class TransportUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TransportUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
