package io.homa4j.bench.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuietRttBenchmarkTest {
    @Test
    void gapOutOfRangeIsRejectedByName() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(-1, 100, Mode.SampleTime, 5));
        assertEquals("gapMicros must be 0..1000000 (us): -1", negative.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(QuietRttBenchmark.MAX_GAP_MICROS + 1, 100, Mode.SampleTime, 5));
        assertDoesNotThrow(() -> QuietRttBenchmark.checkParameters(0, 100, Mode.SampleTime, 5));
        assertDoesNotThrow(() -> QuietRttBenchmark.checkParameters(
                QuietRttBenchmark.MAX_GAP_MICROS, 100, Mode.SampleTime, 5));
    }

    @Test
    void sizeOutOfRangeIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(1000, 0, Mode.SampleTime, 5));
        assertTrue(e.getMessage().startsWith("size must be 1.."), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(1000, Endpoints.MAX_MESSAGE + 1, Mode.SampleTime, 5));
    }

    @Test
    void coldCallCountOutOfRangeIsRejected() {
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(1000, 100, Mode.SingleShotTime,
                        QuietRttBenchmark.MAX_COLD_CALLS + 1));
        assertTrue(tooMany.getMessage().contains("-i must be 1..2000"), tooMany.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> QuietRttBenchmark.checkParameters(1000, 100, Mode.SingleShotTime, 0));
        assertDoesNotThrow(() -> QuietRttBenchmark.checkParameters(1000, 100, Mode.SingleShotTime, 200));
        // warm mode's iterations are timed, not counted calls: any count JMH accepts is fine
        assertDoesNotThrow(() -> QuietRttBenchmark.checkParameters(1000, 100, Mode.SampleTime, 10_000));
    }

    @Test
    void threadsStartedByAnActionAreTheNewOnes() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        int[] tid = new int[1];
        Thread t = new Thread(() -> {
            tid[0] = ThreadActivity.currentThreadId();
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Set<Integer> started = ThreadActivity.startedBy(() -> {
            t.start();
            try {
                running.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            // The JVM may start threads of its own meanwhile (compiler threads come and go): the new thread is
            // among those found, the caller (there before) is not.
            assertTrue(started.contains(tid[0]), started + " lacks " + tid[0]);
            assertFalse(started.contains(ThreadActivity.currentThreadId()));
        } finally {
            release.countDown();
            t.join();
        }
    }
}
