package io.homa4j;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Occupies one thread of an executor (an event loop, a callback executor) with a task that waits until the test
 * releases it, so that work handed to that thread in the meantime queues behind it. A test can wait until the
 * thread is really held ({@link #awaitHeld}); the hold ends after at most {@code maxSeconds} even if never
 * released, so a failing test cannot leave the thread blocked.
 */
final class HeldThread {
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    private HeldThread() {
    }

    /** Starts holding the thread of {@code executor} that runs its next task. */
    static HeldThread hold(Executor executor, long maxSeconds) {
        HeldThread h = new HeldThread();
        executor.execute(() -> {
            h.held.countDown();
            try {
                h.release.await(maxSeconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return h;
    }

    /** True once the holding task runs, within {@code seconds}. */
    boolean awaitHeld(long seconds) throws InterruptedException {
        return held.await(seconds, TimeUnit.SECONDS);
    }

    /** Lets the thread go on with what queued behind it. */
    void release() {
        release.countDown();
    }
}
