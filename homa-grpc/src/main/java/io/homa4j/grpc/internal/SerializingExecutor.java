package io.homa4j.grpc.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.LoggerFactory;

/**
 * Runs one call's listener callbacks on a shared executor one at a time, in the order they were submitted, as
 * gRPC promises listeners (a cancellation arriving on the event loop waits for the callback in progress).
 */
final class SerializingExecutor implements Executor {
    private final Executor executor;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();

    SerializingExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (running.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // A stopped executor: run the callbacks here rather than lose the call's end.
                drain();
            }
        }
    }

    private void drain() {
        try {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LoggerFactory.getLogger(SerializingExecutor.class).warn("a gRPC callback threw", e);
                }
            }
        } finally {
            running.set(false);
        }
        if (!tasks.isEmpty()) {
            schedule(); // added between the last poll and the flag's reset
        }
    }
}
