package io.homa4j;

import io.homa4j.core.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The endpoint's {@link RpcObserver}, or none: each event is passed on with an observer's exception logged and
 * contained, so a faulty observer never breaks an RPC. Event loop only, like the observer itself.
 */
final class Observers {
    private static final Logger LOG = LoggerFactory.getLogger(Observers.class);

    private final RpcObserver observer;

    /** @param observer the application's observer, or null for none */
    Observers(RpcObserver observer) {
        this.observer = observer;
    }

    void callCompleted(PendingCall<?> call, int responseBytes) {
        if (observer == null) {
            return;
        }
        try {
            observer.callCompleted(call.server, call.requestBytes, responseBytes, System.nanoTime() - call.startNanos);
        } catch (RuntimeException e) {
            LOG.warn("RpcObserver.callCompleted threw", e);
        }
    }

    void callFailed(PendingCall<?> call, ErrorCode code) {
        if (observer == null) {
            return;
        }
        try {
            observer.callFailed(call.server, call.requestBytes, code, System.nanoTime() - call.startNanos);
        } catch (RuntimeException e) {
            LOG.warn("RpcObserver.callFailed threw", e);
        }
    }

    /** @param responseBytes the response's length, or -1 when the handler failed the RPC */
    void requestServed(ServerCall ctx, int responseBytes, long nowNanos) {
        if (observer == null) {
            return;
        }
        try {
            observer.requestServed(ctx.client, ctx.requestBytes, responseBytes, nowNanos - ctx.deliveredNanos);
        } catch (RuntimeException e) {
            LOG.warn("RpcObserver.requestServed threw", e);
        }
    }
}
