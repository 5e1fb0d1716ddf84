package io.homa4j.faults.internal;

import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.DatagramPath;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Datagrams a {@link DatagramFilter} asked to pass on later ({@link DatagramPath#forwardLater}): each waits on a
 * timer of the event loop, then goes to the exit. {@link #close()} releases those still waiting, so a delayed
 * datagram is never leaked by an endpoint that closes before it is due.
 *
 * <p>Threading: event loop only. Owns every packet it holds.
 */
final class DelayLine {

    /** Where a datagram goes when its time comes; takes ownership. */
    @FunctionalInterface
    interface Exit {
        void pass(InetSocketAddress address, int priorityLevel, ByteBuf packet);
    }

    private final Supplier<? extends EventExecutor> loop;
    private final Exit exit;
    private final Set<Held> held = new HashSet<>();
    private boolean closed;

    /** @param loop the event loop, asked for only when a first datagram is held (channels register late) */
    DelayLine(Supplier<? extends EventExecutor> loop, Exit exit) {
        this.loop = loop;
        this.exit = exit;
    }

    void hold(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
        if (closed) {
            packet.release();
            return;
        }
        Held h = new Held(address, priorityLevel, packet);
        held.add(h);
        try {
            h.timer = loop.get().schedule(h, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException loopGone) {
            held.remove(h);
            packet.release();
        }
    }

    /** Datagrams waiting. */
    int size() {
        return held.size();
    }

    /** Releases every datagram still waiting and refuses later ones. Idempotent. */
    void close() {
        closed = true;
        for (Held h : new ArrayList<>(held)) {
            if (h.timer != null) {
                h.timer.cancel(false);
            }
            h.packet.release();
        }
        held.clear();
    }

    private final class Held implements Runnable {
        final InetSocketAddress address;
        final int priorityLevel;
        final ByteBuf packet;
        ScheduledFuture<?> timer;

        Held(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            this.address = address;
            this.priorityLevel = priorityLevel;
            this.packet = packet;
        }

        @Override
        public void run() {
            if (held.remove(this)) { // false: close() released it already
                exit.pass(address, priorityLevel, packet);
            }
        }
    }
}
