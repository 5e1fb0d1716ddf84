package io.homa4j.bench.simulate;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * The rack's packet buffers. A packet is asked for at its exact length ({@code buffer(n, n)}); a buffer of such a
 * small length is kept when its last reference is released and handed out again for the next packet of that
 * length. Netty's pooled allocator, which this replaces for packets, spent about a quarter of the simulating
 * thread's time in its arena (subpage bitmaps, runs split and merged as the packets in flight rose and fell);
 * here a packet costs a pop and a push. A message buffer of more than {@link #LENGTH_ONLY_ABOVE} bytes is a
 * {@link LengthOnlyBuffer} (no bytes: the rack never reads its payloads); every other request goes to
 * {@code others}.
 *
 * <p>A kept buffer's bytes are not cleared, as a pooled buffer's are not: the engine writes every byte of a
 * packet. The buffers are plain heap arrays, freed by the garbage collector with the rack. Not thread-safe: one
 * rack's nodes share one on the network's thread.
 */
final class RecyclingAllocator extends AbstractByteBufAllocator {
    /** Largest length kept (the largest packet at the default MTU is 1,472 bytes). */
    static final int MAX_KEPT_LENGTH = 2_048;

    /**
     * A buffer of a known length above this is a message buffer (the engine asks for those with the message's
     * length as the maximum) and gets a {@link LengthOnlyBuffer}; a buffer of unbounded length (an error payload
     * being written) or a short one stays real.
     */
    static final int LENGTH_ONLY_ABOVE = 4_096;

    private final ByteBufAllocator others;
    /** Per length, a stack of released buffers linked through {@link Kept#nextFree}. */
    private final Kept[] freeByLength = new Kept[MAX_KEPT_LENGTH + 1];

    /** Whether message buffers over {@link #LENGTH_ONLY_ABOVE} bytes are {@link LengthOnlyBuffer}s. */
    private final boolean lengthOnlyMessages;

    /** @param others where every request other than a small exact-length one goes */
    RecyclingAllocator(ByteBufAllocator others) {
        this(others, true);
    }

    /**
     * @param others             where every request other than a small exact-length one goes
     * @param lengthOnlyMessages false: message buffers are real too (the tests' check that bytes do not matter)
     */
    RecyclingAllocator(ByteBufAllocator others, boolean lengthOnlyMessages) {
        super(true); // buffer(..) comes here, to newDirectBuffer
        this.others = others;
        this.lengthOnlyMessages = lengthOnlyMessages;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        if (lengthOnlyMessages && maxCapacity > LENGTH_ONLY_ABOVE && maxCapacity != Integer.MAX_VALUE) {
            return toLeakAwareBuffer(new LengthOnlyBuffer(this, initialCapacity, maxCapacity));
        }
        if (initialCapacity != maxCapacity || maxCapacity > MAX_KEPT_LENGTH) {
            return others.directBuffer(initialCapacity, maxCapacity);
        }
        Kept b = freeByLength[maxCapacity];
        if (b == null) {
            b = new Kept(this, maxCapacity);
        } else {
            freeByLength[maxCapacity] = b.nextFree;
            b.nextFree = null;
            b.reuse();
        }
        return toLeakAwareBuffer(b);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return others.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    private void keep(Kept b) {
        b.nextFree = freeByLength[b.capacity()];
        freeByLength[b.capacity()] = b;
    }

    /**
     * A packet buffer that goes back to its allocator instead of being freed. The plain heap buffer, not Netty's
     * Unsafe one: from Java 24 on Netty leaves sun.misc.Unsafe alone, and the Unsafe buffer then fails on first
     * write; the plain one reads and writes multi-byte values through VarHandles, as fast on Java 17.
     */
    private static final class Kept extends UnpooledHeapByteBuf {
        private final RecyclingAllocator owner;
        private Kept nextFree;

        Kept(RecyclingAllocator owner, int length) {
            super(owner, length, length);
            this.owner = owner;
        }

        void reuse() {
            resetRefCnt();
            clear();
            markReaderIndex();
            markWriterIndex();
        }

        @Override
        protected void deallocate() {
            if (capacity() == maxCapacity()) {
                owner.keep(this);
            } else {
                super.deallocate(); // resized by its user: not the length it is kept under
            }
        }
    }
}
