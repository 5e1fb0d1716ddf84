package io.homa4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

/**
 * Fails a test class when a {@code ByteBuf} it allocated was garbage-collected without being released.
 *
 * <p>Registered for every test class by JUnit's extension auto-detection (see
 * {@code junit-platform.properties}); the surefire configuration runs tests with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked. Netty only notices a leak when
 * a later buffer is tracked after the leaked one was collected, so this check collects garbage and then
 * allocates a few buffers to drain the detectors' reference queues.
 */
public final class LeakCheck implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " ByteBuf leak(s) detected in " + context.getDisplayName()
                    + ":\n" + String.join("\n", leaks));
        }
    }

    /** Forces collection and leak reporting, then returns and forgets every leak recorded so far. */
    public static List<String> collectLeaks() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            System.runFinalization();
            Thread.sleep(20); // let the reference handler enqueue collected buffers; not a synchronisation point
            for (int i = 0; i < 4; i++) {
                ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                pooled.release();
                ByteBuf heap = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
                heap.release();
                ByteBuf unpooled = Unpooled.directBuffer(16);
                unpooled.release();
            }
        }
        return LeakRecordingDetectorFactory.drainLeaks();
    }
}
