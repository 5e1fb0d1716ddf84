package io.homa4j.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class SmallMessageAllocatorTest {
    private final SmallMessageAllocator alloc = SmallMessageAllocator.INSTANCE;

    @Test
    void givesHeapBuffersOfTheAskedCapacity() {
        ByteBuf b = alloc.buffer(100, 100);
        try {
            assertFalse(b.isDirect());
            assertEquals(100, b.capacity());
            assertEquals(100, b.maxCapacity());
            assertSame(alloc, b.alloc());
            b.writeLong(42);
            assertEquals(42, b.readLong());
        } finally {
            assertTrue(b.release());
        }
    }

    @Test
    void itsHeapBuffersAreWatchedByTheLeakDetector() {
        assumeTrue(ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID,
                "the build runs tests with paranoid leak detection");
        ByteBuf b = alloc.heapBuffer(16, 16);
        try {
            // Netty's unpooled allocator hands out bare heap buffers; a tracked one wraps the buffer
            assertInstanceOf(UnpooledHeapByteBuf.class, b.unwrap());
        } finally {
            b.release();
        }
    }

    @Test
    void directBuffersComeFromThePool() {
        ByteBuf b = alloc.directBuffer(64);
        try {
            assertTrue(b.isDirect());
            assertTrue(alloc.isDirectBufferPooled());
        } finally {
            b.release();
        }
    }
}
