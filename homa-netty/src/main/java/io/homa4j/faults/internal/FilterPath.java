package io.homa4j.faults.internal;

import io.homa4j.faults.DatagramFilter;
import io.homa4j.faults.DatagramPath;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The {@link DatagramPath} a {@link DatagramFilter} is given on one side of an endpoint: forwards to {@code now},
 * holds delayed packets in a {@link DelayLine} that leads to {@code later}, releases and counts drops.
 *
 * <p>Threading: event loop only. {@link #close()} releases what is held.
 */
final class FilterPath implements DatagramPath {
    private final DelayLine.Exit now;
    private final DelayLine delayLine;
    private final Runnable countDrop;
    private final ByteBufAllocator allocator;

    /**
     * @param loop      the event loop whose timers hold delayed packets (asked for on first use)
     * @param now       where a forwarded packet goes
     * @param later     where a delayed packet goes when due (outside any engine turn)
     * @param countDrop counts one dropped packet
     */
    FilterPath(Supplier<? extends EventExecutor> loop, DelayLine.Exit now, DelayLine.Exit later, Runnable countDrop,
               ByteBufAllocator allocator) {
        this.now = now;
        this.delayLine = new DelayLine(loop, later);
        this.countDrop = countDrop;
        this.allocator = allocator;
    }

    @Override
    public void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
        now.pass(address, priorityLevel, packet);
    }

    @Override
    public void forwardLater(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
        delayLine.hold(delayNanos, address, priorityLevel, packet);
    }

    @Override
    public void drop(ByteBuf packet) {
        countDrop.run();
        packet.release();
    }

    @Override
    public ByteBufAllocator alloc() {
        return allocator;
    }

    /** Releases the packets held for later and refuses new ones. */
    void close() {
        delayLine.close();
    }
}
