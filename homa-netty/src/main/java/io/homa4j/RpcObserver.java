package io.homa4j;

import io.homa4j.core.ErrorCode;

import java.net.InetSocketAddress;

/**
 * Optional per-RPC listener of an endpoint (see {@link HomaEndpointBuilder#observer(RpcObserver)}), for tracing
 * and application-level metrics. Every method has an empty default.
 *
 * <p>Threading: called on the endpoint's event loop; implementations must be quick and must not block. An
 * exception thrown by an observer is logged and otherwise ignored.
 */
public interface RpcObserver {

    /** A call ended with a response, {@code rttNanos} after {@code call} was invoked. */
    default void callCompleted(InetSocketAddress server, int requestBytes, int responseBytes, long rttNanos) {
    }

    /** A call ended without a response (cancellation included, with {@link ErrorCode#CANCELLED}). */
    default void callFailed(InetSocketAddress server, int requestBytes, ErrorCode code, long elapsedNanos) {
    }

    /**
     * The handler of a request replied ({@code responseBytes >= 0}) or failed it ({@code responseBytes == -1}),
     * {@code serviceNanos} after the request was delivered.
     */
    default void requestServed(InetSocketAddress client, int requestBytes, int responseBytes, long serviceNanos) {
    }
}
