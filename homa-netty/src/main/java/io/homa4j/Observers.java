package io.homa4j;

import io.homa4j.core.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The endpoint's {@link RpcObserver}s (none, one, or those combined by {@link RpcObserver#all}): each event is
 * passed to each with an observer's exception logged and contained, so a faulty observer never breaks an RPC or
 * keeps the next observer from being told. Event loop only, like the observers themselves.
 */
final class Observers implements RpcObserver {
    private static final Logger LOG = LoggerFactory.getLogger(Observers.class);

    private final RpcObserver[] observers;

    /** @param observer the application's observer, or null for none */
    Observers(RpcObserver observer) {
        this(observer == null ? List.of() : List.of(observer));
    }

    Observers(List<RpcObserver> observers) {
        this.observers = observers.toArray(new RpcObserver[0]);
    }

    void callCompleted(PendingCall<?> call, int responseBytes) {
        if (observers.length > 0) {
            callCompleted(call.rpcId, call.server, call.requestBytes, responseBytes,
                    System.nanoTime() - call.startNanos);
        }
    }

    void callFailed(PendingCall<?> call, ErrorCode code) {
        if (observers.length > 0) {
            callFailed(call.rpcId, call.server, call.requestBytes, code, System.nanoTime() - call.startNanos);
        }
    }

    /** @param responseBytes the response's length, or -1 when the handler failed the RPC */
    void requestServed(ServerCall ctx, int responseBytes, long nowNanos) {
        if (observers.length > 0) {
            requestServed(ctx.handle, ctx.client, ctx.requestBytes, responseBytes, nowNanos - ctx.deliveredNanos);
        }
    }

    @Override
    public void callCompleted(long rpcId, InetSocketAddress server, int requestBytes, int responseBytes,
                              long rttNanos) {
        for (RpcObserver o : observers) {
            try {
                o.callCompleted(rpcId, server, requestBytes, responseBytes, rttNanos);
            } catch (RuntimeException e) {
                LOG.warn("RpcObserver.callCompleted threw", e);
            }
        }
    }

    @Override
    public void callFailed(long rpcId, InetSocketAddress server, int requestBytes, ErrorCode code,
                           long elapsedNanos) {
        for (RpcObserver o : observers) {
            try {
                o.callFailed(rpcId, server, requestBytes, code, elapsedNanos);
            } catch (RuntimeException e) {
                LOG.warn("RpcObserver.callFailed threw", e);
            }
        }
    }

    @Override
    public void requestServed(long rpcId, InetSocketAddress client, int requestBytes, int responseBytes,
                              long serviceNanos) {
        for (RpcObserver o : observers) {
            try {
                o.requestServed(rpcId, client, requestBytes, responseBytes, serviceNanos);
            } catch (RuntimeException e) {
                LOG.warn("RpcObserver.requestServed threw", e);
            }
        }
    }
}
