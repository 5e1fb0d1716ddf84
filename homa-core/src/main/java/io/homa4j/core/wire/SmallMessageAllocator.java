package io.homa4j.core.wire;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * Buffers for short messages that live for one call: a request or response that arrived whole in one packet, an
 * RPC envelope with a short payload copied behind it. Each is a fresh heap array, not a pooled buffer: allocating
 * one touches a thread's allocation pointer and little else, where a pool walks its per-thread caches and size
 * classes, which on an endpoint whose caches went cold between calls cost microseconds per buffer. The arrays are
 * small (a packet's payload at most, or a short envelope) and die young, which is what the garbage collector
 * handles best.
 *
 * <p>Unlike Netty's unpooled allocator, this one hands its heap buffers to the leak detector like any pooled
 * buffer, so that reference counting stays checked (sampled, or every buffer at the paranoid level).
 *
 * <p>{@link #buffer} and {@link #heapBuffer} give heap buffers; {@link #directBuffer} goes to the pooled
 * allocator. Thread-safe.
 */
public final class SmallMessageAllocator extends AbstractByteBufAllocator {
    /** The one instance. */
    public static final SmallMessageAllocator INSTANCE = new SmallMessageAllocator();

    private SmallMessageAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return toLeakAwareBuffer(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
