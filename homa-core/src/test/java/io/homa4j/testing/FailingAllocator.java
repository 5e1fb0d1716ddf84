package io.homa4j.testing;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An allocator that runs out of memory on demand: buffers larger than {@link #failAbove(int)} bytes throw
 * {@link OutOfMemoryError} with the message Netty gives at the JVM's direct-memory limit; smaller ones are heap
 * buffers whose bytes are counted until released ({@link #used()}). A buffer's {@code alloc()} is this allocator,
 * so what the code under test allocates "like" a buffer it was handed fails too. Shared by the tests that check
 * an allocation failure is contained (engine, envelopes, endpoint fuzzing).
 *
 * <p>Threading: any; the limit may be changed from another thread than the one allocating.
 */
public final class FailingAllocator extends AbstractByteBufAllocator {
    private final AtomicLong used = new AtomicLong();
    private volatile int failAbove = Integer.MAX_VALUE;

    /** From now on, requests for more than {@code bytes} fail; {@code -1}: every request, {@code MAX_VALUE}: none. */
    public FailingAllocator failAbove(int bytes) {
        failAbove = bytes;
        return this;
    }

    /** The current limit ({@link #failAbove(int)}). */
    public int failAbove() {
        return failAbove;
    }

    /** Bytes of the buffers handed out and not yet released. */
    public long used() {
        return used.get();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        if (initialCapacity > failAbove) {
            throw new OutOfMemoryError("Cannot reserve " + initialCapacity + " bytes of direct buffer memory");
        }
        return new CountedHeapBuf(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return newHeapBuffer(initialCapacity, maxCapacity); // what is held matters to these tests, not where
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** Counts its array (also when it grows) in {@link #used}. */
    private final class CountedHeapBuf extends UnpooledHeapByteBuf {
        CountedHeapBuf(int initialCapacity, int maxCapacity) {
            super(FailingAllocator.this, initialCapacity, maxCapacity);
        }

        @Override
        protected byte[] allocateArray(int initialCapacity) {
            byte[] array = super.allocateArray(initialCapacity);
            used.addAndGet(array.length);
            return array;
        }

        @Override
        protected void freeArray(byte[] array) {
            used.addAndGet(-array.length);
            super.freeArray(array);
        }
    }
}
