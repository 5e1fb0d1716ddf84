package io.homa4j;

import io.homa4j.core.metrics.MetricsSnapshot;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The drain of a graceful shutdown, on the event loop: once the endpoint stopped taking new calls and requests,
 * it checks every millisecond whether what was in flight has finished (no call in the call table, no request
 * waiting for its handler's answer, no RPC left in the engine: responses sent and acknowledged), and closes the
 * endpoint when it has, or when the grace period is over, whichever comes first. The close is the usual hard
 * stop: calls still outstanding then fail with {@code CANCELLED}.
 *
 * <p>Threading: event loop only, after construction.
 */
final class GracefulShutdown {
    private static final long CHECK_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final EngineHost host;
    private final ClientCallTable calls;
    private final ServerDispatcher server;
    private final Runnable close;
    private final long graceEndNanos;
    private ScheduledFuture<?> check;

    /** @param close the endpoint's hard stop, run on the loop when drained or out of time */
    GracefulShutdown(EngineHost host, ClientCallTable calls, ServerDispatcher server, Runnable close,
                     long graceEndNanos) {
        this.host = host;
        this.calls = calls;
        this.server = server;
        this.close = close;
        this.graceEndNanos = graceEndNanos;
    }

    /** Starts checking; event loop. */
    void start() {
        if (!checkNow()) {
            check = host.every(CHECK_PERIOD_NANOS, this::checkNow);
        }
    }

    /** Closes the endpoint when drained or out of time; returns whether it did. */
    private boolean checkNow() {
        if (host.isClosed() || drained() || host.nanoTime() - graceEndNanos >= 0) {
            if (check != null) {
                check.cancel(false);
            }
            close.run();
            return true;
        }
        return false;
    }

    private boolean drained() {
        if (host.engineStopped() || !calls.isEmpty() || server.pendingRequests() > 0) {
            return host.engineStopped();
        }
        MetricsSnapshot m = host.engine().metrics();
        return m == null || (m.clientRpcs() == 0 && m.serverRpcs() == 0);
    }
}
