package io.homa4j.testing;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A leak-detector factory whose detectors remember every leak they report, so tests can fail on them
 * instead of only logging them. Installed once per test JVM by {@link LeakTrackingSessionListener},
 * before any {@code ByteBuf} class initialises its static detector.
 */
public final class LeakRecordingDetectorFactory extends ResourceLeakDetectorFactory {
    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
    private static volatile boolean installed;

    static void install() {
        if (!installed) {
            ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new LeakRecordingDetectorFactory());
            installed = true;
        }
    }

    /** True when this factory was installed before the buffer classes loaded (so leaks are recorded). */
    public static boolean installed() {
        return installed;
    }

    /** Returns and forgets the leaks reported so far. */
    public static List<String> drainLeaks() {
        List<String> out = new ArrayList<>();
        String leak;
        while ((leak = LEAKS.poll()) != null) {
            out.add(leak);
        }
        return out;
    }

    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
        return new RecordingDetector<>(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
        return new RecordingDetector<>(resource, samplingInterval);
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK " + resourceType + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK " + resourceType + " (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
