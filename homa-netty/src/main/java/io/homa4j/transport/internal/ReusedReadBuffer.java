package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * A fixed-size read buffer per socket that is used again for the next read once nothing refers to it any more.
 *
 * <p>Why: a recvmmsg read with 64 KB slots needs a buffer of a megabyte. Netty's pooled allocator serves that
 * from a 4 MiB chunk and destroys the chunk when its last buffer is freed, so a socket that reads, hands the
 * packets on and frees the buffer made the allocator create, and the JDK zero, a fresh chunk for almost every
 * read: 13% of the event loop's time in a 1 MB echo profile (Unsafe.setMemory). The engine copies what it keeps
 * out of the packets before the burst returns, so the buffer is normally free again at the next read.
 *
 * <p>Ownership: this allocator holds one reference to its current buffer; each read gets another, which the
 * channel releases. A buffer still referenced when the next read starts (a fault injector delaying packets, say)
 * is left to its holders and a new one is taken. {@link #releaseHeld} drops the held reference when the socket
 * has closed. One instance per socket; event loop only.
 */
final class ReusedReadBuffer extends FixedRecvByteBufAllocator {
    private final int capacity;
    private final Runnable handOnPending;
    private ByteBuf held;
    private boolean released;

    /**
     * @param handOnPending makes the socket's handler hand on the packets it still holds (and so the slices of the
     *                      buffer) before the buffer is judged busy: Netty reads several times per wake-up and
     *                      the handler delivers its burst only when the reads are over
     */
    ReusedReadBuffer(int capacity, Runnable handOnPending) {
        super(capacity);
        this.capacity = capacity;
        this.handOnPending = handOnPending;
    }

    @Override
    public Handle newHandle() {
        return new ReusingHandle((ExtendedHandle) super.newHandle());
    }

    /** Drops this allocator's reference to its buffer; later reads allocate as usual. Idempotent. */
    void releaseHeld() {
        released = true;
        if (held != null) {
            held.release();
            held = null;
        }
    }

    private ByteBuf allocate(ByteBufAllocator alloc) {
        if (held != null && held.refCnt() != 1) {
            handOnPending.run(); // may run application code that closes the socket, hence the check below
        }
        if (released) {
            return alloc.directBuffer(capacity, capacity);
        }
        if (held == null || held.refCnt() != 1) {
            if (held != null) {
                held.release(); // still read by someone else; they free it
            }
            held = alloc.directBuffer(capacity, capacity);
        }
        held.clear();
        return held.retain();
    }

    private final class ReusingHandle implements ExtendedHandle {
        private final ExtendedHandle delegate;

        ReusingHandle(ExtendedHandle delegate) {
            this.delegate = delegate;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return ReusedReadBuffer.this.allocate(alloc);
        }

        @Override
        public int guess() {
            return delegate.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            delegate.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            delegate.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            delegate.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return delegate.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            delegate.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return delegate.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return delegate.continueReading();
        }

        /**
         * Reads again only after a read that filled every slot. Netty's epoll is level-triggered, so a socket that
         * receives more after a read that left slots empty wakes the loop again; reading on until the kernel says
         * EAGAIN cost one more recvmmsg per wake-up (and the getsockopt Netty's native read makes each time): four
         * of the sixteen syscalls of a 100 B echo.
         */
        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return delegate.lastBytesRead() >= delegate.attemptedBytesRead()
                    && delegate.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            delegate.readComplete();
        }
    }
}
