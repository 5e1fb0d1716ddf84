package io.homa4j.bench.soak;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the buffer leaks Netty's leak detector reports, so a run can print them as a figure. Works only when
 * {@link #install} runs before the first {@code ByteBuf} class initialises its detector (the start of a bench
 * command does); {@link #counting} tells whether it did. Also raises the detector level to ADVANCED unless the
 * JVM was started with an explicit {@code -Dio.netty.leakDetection.level}.
 */
public final class LeakCounter extends ResourceLeakDetectorFactory {
    private static final AtomicLong LEAKS = new AtomicLong();
    private static volatile boolean counting;
    private static volatile boolean installed;

    private LeakCounter() {
    }

    /**
     * Installs the counting factory (once per JVM), unless another than Netty's default is installed already (a
     * test harness that records leaks itself, which must keep seeing them).
     */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        if (!ResourceLeakDetectorFactory.instance().getClass().getName().startsWith("io.netty.")) {
            return;
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.ADVANCED);
        }
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new LeakCounter());
    }

    /** True when the ByteBuf leak detector came from this factory, so {@link #leaks} is the real count. */
    public static boolean counting() {
        return counting;
    }

    public static long leaks() {
        return LEAKS.get();
    }

    /**
     * Collects garbage and allocates a few buffers, so that leaked buffers already unreachable are reported
     * (Netty checks for collected, unreleased buffers only when it tracks a new one); then returns the count.
     */
    public static long flush() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(50); // lets the reference handler enqueue collected buffers
            for (int i = 0; i < 200; i++) {
                ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                pooled.release();
                ByteBuf unpooled = Unpooled.directBuffer(16);
                unpooled.release();
            }
        }
        return leaks();
    }

    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                             long maxActive) {
        return newResourceLeakDetector(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
        if (ByteBuf.class.isAssignableFrom(resource)) {
            counting = true;
        }
        return new CountingDetector<>(resource, samplingInterval);
    }

    private static final class CountingDetector<T> extends ResourceLeakDetector<T> {
        CountingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.incrementAndGet();
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.incrementAndGet();
            super.reportUntracedLeak(resourceType);
        }
    }
}
