package io.homa4j;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client's bounded in-flight window: how many calls may be outstanding at once (a call is outstanding from
 * {@code call} until its future completes). A call made when the window is full fails at once with
 * {@code RESOURCE_EXHAUSTED} (retry-safe); callers that would rather wait use {@link #awaitReady} (blocking) or
 * {@link #onReady} (a callback), as with gRPC's {@code isReady}/{@code onReady}.
 *
 * <p>Threading: thread-safe. Acquiring and releasing are a compare-and-set each; the lock is taken only when
 * someone waits.
 */
final class CallWindow {
    private final int capacity;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentLinkedQueue<ReadyListener> listeners = new ConcurrentLinkedQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    /** Threads in {@link #awaitReady}; read without the lock by {@link #release} to skip signalling. */
    private final AtomicInteger waiting = new AtomicInteger();

    private record ReadyListener(Runnable task, Executor executor) {
    }

    CallWindow(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    int inFlight() {
        return inFlight.get();
    }

    boolean isReady() {
        return inFlight.get() < capacity;
    }

    /** Takes a place in the window; false when it is full. */
    boolean tryAcquire() {
        while (true) {
            int n = inFlight.get();
            if (n >= capacity) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives a place back (once per successful {@link #tryAcquire}) and tells whoever waits for one. */
    void release() {
        inFlight.decrementAndGet();
        if (waiting.get() > 0) {
            lock.lock();
            try {
                released.signalAll();
            } finally {
                lock.unlock();
            }
        }
        runListeners();
    }

    /**
     * Waits until the window has room, at most {@code timeout}. Room is not reserved: another thread may take it
     * first, and then {@code call} fails with {@code RESOURCE_EXHAUSTED} as usual.
     *
     * @return true when there is room, false when the time ran out first
     */
    boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        if (isReady()) {
            return true;
        }
        long remaining = unit.toNanos(timeout);
        waiting.incrementAndGet();
        lock.lock();
        try {
            while (!isReady()) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = released.awaitNanos(remaining);
            }
            return true;
        } finally {
            lock.unlock();
            waiting.decrementAndGet();
        }
    }

    /**
     * Runs {@code task} once, on {@code executor}, as soon as the window has room: at once when it has now,
     * otherwise when a call ends.
     */
    void onReady(Runnable task, Executor executor) {
        listeners.add(new ReadyListener(task, executor));
        runListeners(); // room may have appeared between the caller's check and the add
    }

    private void runListeners() {
        ReadyListener l;
        while (isReady() && (l = listeners.poll()) != null) {
            l.executor.execute(l.task);
        }
    }
}
