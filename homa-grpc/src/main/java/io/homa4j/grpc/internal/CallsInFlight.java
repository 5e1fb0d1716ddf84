package io.homa4j.grpc.internal;

import io.homa4j.HomaEndpoint;

import java.util.concurrent.TimeUnit;

/**
 * The lifecycle a channel and a server share: calls in flight are counted; after {@link #shutdown()} no call
 * enters, and when the last one has left, {@code onTerminated} runs once (on the thread that ended it) and
 * {@link #awaitTermination} returns. Thread-safe.
 */
final class CallsInFlight {
    private final Runnable onTerminated;
    private final HomaEndpoint ownedEndpoint;
    private int calls;
    private boolean shutdown;
    private boolean terminated;

    /**
     * @param onTerminated  releases what the owner holds (executors, its endpoint)
     * @param ownedEndpoint the owner's own endpoint, whose termination {@link #awaitTermination} waits for too;
     *                      null when the endpoint is the application's
     */
    CallsInFlight(Runnable onTerminated, HomaEndpoint ownedEndpoint) {
        this.onTerminated = onTerminated;
        this.ownedEndpoint = ownedEndpoint;
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

    private void terminate() {
        onTerminated.run();
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
