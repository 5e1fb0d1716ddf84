package io.homa4j.grpc.internal;

import io.homa4j.HomaEndpoint;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The lifecycle a channel and a server share, and the one owner of what they made for themselves. Calls in flight
 * are counted; after {@link #shutdown()} no call enters, and when the last one has left, the owner's resources are
 * released once, on the thread that ended that call, and {@link #awaitTermination} returns (once an owned endpoint
 * has terminated too). Thread-safe.
 */
final class Lifecycle {
    private final HomaEndpoint ownedEndpoint;
    private final Duration endpointGrace;
    private final ExecutorService ownedExecutor;
    private final Runnable onTerminated;
    private int calls;
    private boolean shutdown;
    private boolean terminated;

    /**
     * @param ownedEndpoint the owner's own endpoint, null when the endpoint is the application's; shut down (not
     *                      closed: this may run on its event loop) with {@code endpointGrace} on termination
     * @param endpointGrace how long the owned endpoint's last packets may take to leave
     * @param ownedExecutor the executor the owner made, null when it is the application's; shut down on
     *                      termination (tasks already queued, such as a call's last callbacks, still run)
     * @param onTerminated  releases anything else the owner holds (its timers), before the executor and endpoint
     */
    Lifecycle(HomaEndpoint ownedEndpoint, Duration endpointGrace, ExecutorService ownedExecutor,
              Runnable onTerminated) {
        this.ownedEndpoint = ownedEndpoint;
        this.endpointGrace = endpointGrace;
        this.ownedExecutor = ownedExecutor;
        this.onTerminated = onTerminated;
    }

    /** Counts a call in; false once shut down (the call must be refused). */
    synchronized boolean enter() {
        if (shutdown) {
            return false;
        }
        calls++;
        return true;
    }

    /** Counts a call out (one that {@link #enter} let in). */
    void exit() {
        boolean terminate;
        synchronized (this) {
            calls--;
            terminate = shutdown && calls == 0 && !terminated;
            terminated |= terminate;
        }
        if (terminate) {
            terminate();
        }
    }

    /** Refuses new calls; terminates at once when none is in flight. Idempotent. */
    void shutdown() {
        boolean terminate;
        synchronized (this) {
            if (shutdown) {
                return;
            }
            shutdown = true;
            terminate = calls == 0;
            terminated |= terminate;
        }
        if (terminate) {
            terminate();
        }
    }

    /** Closes the owned endpoint, if any, failing every call in flight on it with CANCELLED. */
    void closeOwnedEndpoint() {
        if (ownedEndpoint != null) {
            ownedEndpoint.close();
        }
    }

    private void terminate() {
        onTerminated.run();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        if (ownedEndpoint != null) {
            ownedEndpoint.shutdown(endpointGrace);
        }
        synchronized (this) {
            notifyAll();
        }
    }

    synchronized boolean isShutdown() {
        return shutdown;
    }

    synchronized boolean isTerminated() {
        return terminated;
    }

    /** Waits for termination (and an owned endpoint's), at most {@code nanos}; true when it came. */
    boolean awaitTermination(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        synchronized (this) {
            while (!terminated) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return ownedEndpoint == null
                || ownedEndpoint.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
