package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

import java.util.function.BooleanSupplier;

/**
 * The read buffers of one socket, used again for the next read once nothing refers to them any more: one of
 * every recvmmsg slot, and on a busy-polling loop one of a single slot for reads that expect one datagram.
 *
 * <p>Why reuse: a recvmmsg read with 64 KB slots needs a buffer of a megabyte. Netty's pooled allocator serves that
 * from a 4 MiB chunk and destroys the chunk when its last buffer is freed, so a socket that reads, hands the
 * packets on and frees the buffer would make the allocator create, and the JDK zero, a fresh chunk for almost
 * every read. The engine copies what it keeps
 * out of the packets before the burst returns, so the buffer is normally free again at the next read.
 *
 * <p>Why a single slot: offered one slot, Netty reads with recvmsg instead of recvmmsg, and its recvmmsg costs a
 * getsockopt per call besides (it asks for IP_RECVORIGDSTADDR every time) and sets up all sixteen slots. On a
 * busy-polling loop, where a 100 B echo is a dozen syscalls, reading each lone request and response with recvmsg
 * saves a measurable share of the echo (docs/architecture.md). A socket reads so when its previous wake-up
 * brought exactly one packet and this wake-up is not one for datagrams that read left behind (level-triggered
 * epoll reports them at once): on a busy-polling loop ({@link LoopTurns}), one in the very next loop turn; on a
 * loop that sleeps in epoll_wait, one that comes within a few microseconds of the engine's last turn, before the
 * loop could have slept (the supplier given at construction, {@code EngineDriver.sleptSinceLastTurn}).
 * Otherwise it reads with every slot. A coalesced (GRO) read that a single slot receives anyway is cut into
 * packets by Netty, a buffer each, and the next wake-up reads with every slot again.
 *
 * <p>Ownership: this allocator holds one reference to each of its buffers; each read gets another, which the
 * channel releases. A buffer still referenced when the next read starts (a fault injector delaying packets, say)
 * is left to its holders and a new one is taken. {@link #releaseHeld} drops the held references when the socket
 * has closed. One instance per socket; event loop only.
 */
final class ReusedReadBuffer extends FixedRecvByteBufAllocator {
    private final Runnable handOnPending;
    /** On a loop that sleeps: whether it slept since the engine's last turn (read at a wake-up, after one packet). */
    private final BooleanSupplier sleptSinceLastTurn;
    private final Reusable allSlots;
    private final Reusable singleSlot;
    private boolean released;

    private boolean turnsLookedUp;
    /** The busy-polling loop's turn count, or null when the loop does not busy-poll. */
    private LoopTurns turns;
    private long lastWakeTurn = Long.MIN_VALUE;
    private int packetsLastWake;
    private boolean readSingle;

    /**
     * @param slotBytes     bytes of one recvmmsg slot (Netty's {@code MAX_DATAGRAM_PAYLOAD_SIZE})
     * @param slots         slots of the full buffer
     * @param handOnPending makes the socket's handler hand on the packets it still holds (and so the slices of the
     *                      buffer) before the buffer is judged busy: Netty reads several times per wake-up and
     *                      the handler delivers its burst only when the reads are over
     * @param sleptSinceLastTurn on a loop that sleeps in epoll_wait, whether it slept since the engine's last turn
     *                      ended; always false keeps every read on such a loop at every slot
     */
    ReusedReadBuffer(int slotBytes, int slots, Runnable handOnPending, BooleanSupplier sleptSinceLastTurn) {
        super(slotBytes * slots);
        this.handOnPending = handOnPending;
        this.sleptSinceLastTurn = sleptSinceLastTurn;
        this.allSlots = new Reusable(slotBytes * slots);
        this.singleSlot = new Reusable(slotBytes);
    }

    @Override
    public Handle newHandle() {
        return new ReusingHandle((ExtendedHandle) super.newHandle());
    }

    /** Drops this allocator's references to its buffers; later reads allocate as usual. Idempotent. */
    void releaseHeld() {
        released = true;
        allSlots.drop();
        singleSlot.drop();
    }

    /** The socket's handler found {@code packets} Homa packets in one datagram of the current wake-up. */
    void packetsRead(int packets) {
        packetsLastWake += packets;
    }

    /** A wake-up of the socket begins: chooses how its first read is made (see the class comment). */
    private void wakeStarted() {
        if (!turnsLookedUp) {
            turnsLookedUp = true;
            turns = LoopTurns.ofThisThread();
        }
        if (turns == null) {
            readSingle = packetsLastWake == 1 && sleptSinceLastTurn.getAsBoolean();
            packetsLastWake = 0;
            return;
        }
        long turn = turns.turn();
        readSingle = packetsLastWake == 1 && turn != lastWakeTurn + 1;
        lastWakeTurn = turn;
        packetsLastWake = 0;
    }

    private ByteBuf allocate(ByteBufAllocator alloc) {
        boolean single = readSingle;
        readSingle = false; // one read per wake-up at most: the rest of this one, if any, uses every slot
        return (single ? singleSlot : allSlots).take(alloc);
    }

    /** One buffer of a fixed size that reads get again while nobody else holds it. */
    private final class Reusable {
        private final int size;
        private ByteBuf held;

        Reusable(int size) {
            this.size = size;
        }

        /** The buffer, cleared, with one more reference for the read (a new one while the old is still read). */
        ByteBuf take(ByteBufAllocator alloc) {
            if (held != null && held.refCnt() != 1) {
                handOnPending.run(); // may run application code that closes the socket, hence the check below
            }
            if (released) {
                return alloc.directBuffer(size, size);
            }
            if (held == null || held.refCnt() != 1) {
                if (held != null) {
                    held.release(); // still read by someone else; they free it
                }
                held = alloc.directBuffer(size, size);
            }
            held.clear();
            return held.retain();
        }

        void drop() {
            if (held != null) {
                held.release();
                held = null;
            }
        }
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
            wakeStarted();
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
