package io.homa4j.core.sim;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Lowers Netty's leak detection from paranoid to simple for each test of a class that moves tens of thousands of
 * packets. Paranoid records a stack trace on every buffer access, which makes such a scenario take minutes of
 * wall time instead of seconds. Simple still tracks a sample of all buffers (1 in 128) and the class-level
 * {@code LeakCheck} still fails the class on any reported leak; the light scenarios and every unit test keep
 * running fully paranoid. Restores the previous level after each test.
 */
public final class SampledLeakDetection implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(SampledLeakDetection.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put("level", ResourceLeakDetector.getLevel());
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        ResourceLeakDetector.Level previous =
                context.getStore(NAMESPACE).remove("level", ResourceLeakDetector.Level.class);
        if (previous != null) {
            ResourceLeakDetector.setLevel(previous);
        }
    }
}
