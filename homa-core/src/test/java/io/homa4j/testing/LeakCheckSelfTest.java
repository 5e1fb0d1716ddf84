package io.homa4j.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Proves the leak check can fail: a deliberately dropped buffer must be reported. */
class LeakCheckSelfTest {

    @Test
    void droppedBufferIsReported() throws Exception {
        assertTrue(LeakRecordingDetectorFactory.installed(), "leak-recording factory not installed");
        LeakCheck.collectLeaks(); // start clean
        leakOne();
        List<String> leaks = List.of();
        for (int attempt = 0; attempt < 20 && leaks.isEmpty(); attempt++) {
            leaks = LeakCheck.collectLeaks();
        }
        assertTrue(!leaks.isEmpty(), "a dropped ByteBuf was not reported as a leak");
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
        // deliberately not released
    }
}
