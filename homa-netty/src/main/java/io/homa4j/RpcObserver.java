package io.homa4j;

import io.homa4j.core.ErrorCode;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * Optional per-RPC listener of an endpoint (see {@link HomaEndpointBuilder#observer(RpcObserver)}), for tracing
 * and application-level metrics. Every method has an empty default.
 *
 * <p>Every call started with {@code call} ends in exactly one {@link #callCompleted} or {@link #callFailed},
 * including calls that never reached the protocol engine (cancelled by the caller before the event loop took
 * them up, too large, or made on a closed endpoint).
 *
 * <p>Threading: called on the endpoint's event loop (after the endpoint's event loop is gone, on the thread that
 * found it gone); implementations must be quick and must not block. An exception thrown by an observer is
 * logged and otherwise ignored.
 */
public interface RpcObserver {

    /** The RPC id given to a call that ended before the engine gave it one. */
    long NO_RPC_ID = -1;

    /**
     * A call ended with a response.
     *
     * @param rpcId         the engine's id of the RPC on this endpoint
     * @param server        the address the call went to
     * @param requestBytes  the request's length
     * @param responseBytes the response's length
     * @param rttNanos      time from {@code call} to the response's delivery
     */
    default void callCompleted(long rpcId, InetSocketAddress server, int requestBytes, int responseBytes,
                               long rttNanos) {
    }

    /**
     * A call ended without a response; a cancellation by the caller is reported with {@link ErrorCode#CANCELLED}.
     *
     * @param rpcId        the engine's id of the RPC on this endpoint, or {@link #NO_RPC_ID} when it ended before
     *                     reaching the engine
     * @param server       the address the call went to
     * @param requestBytes the request's length
     * @param code         why it failed
     * @param elapsedNanos time from {@code call} to its end
     */
    default void callFailed(long rpcId, InetSocketAddress server, int requestBytes, ErrorCode code,
                            long elapsedNanos) {
    }

    /**
     * The handler of a request replied ({@code responseBytes >= 0}) or failed it ({@code responseBytes == -1}).
     *
     * @param rpcId         the engine's id of the server RPC on this endpoint
     * @param client        the caller's address
     * @param requestBytes  the request's length
     * @param responseBytes the reply's length, or -1 when the handler failed the RPC
     * @param serviceNanos  time from the request's delivery to the handler's answer
     */
    default void requestServed(long rpcId, InetSocketAddress client, int requestBytes, int responseBytes,
                               long serviceNanos) {
    }

    /**
     * One observer that tells each of {@code observers} in turn (an exception from one does not keep the others
     * from being told).
     *
     * @param observers the observers, in the order to call them
     * @return the combined observer
     */
    static RpcObserver all(RpcObserver... observers) {
        return new Observers(List.of(observers)); // List.of rejects nulls
    }
}
