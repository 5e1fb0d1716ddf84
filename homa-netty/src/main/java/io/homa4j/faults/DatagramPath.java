package io.homa4j.faults;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.InetSocketAddress;

/**
 * Where a {@link DatagramFilter} sends the datagrams it lets through: towards the socket for outbound packets,
 * towards the engine for inbound ones. Each method takes ownership of {@code packet}.
 *
 * <p>Threading: event loop only.
 */
@Unstable("fault injection for tests")
public interface DatagramPath {

    /** Passes {@code packet} on now. {@code address} is the peer (outbound) or sender (inbound). */
    void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet);

    /**
     * Passes {@code packet} on after at least {@code delayNanos}; released unsent if the endpoint closes first.
     * Packets held for different times overtake one another: this is how a filter reorders.
     */
    void forwardLater(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet);

    /** Releases {@code packet} and counts it as filtered out. */
    void drop(ByteBuf packet);

    /** Allocator for the copies a filter makes. */
    ByteBufAllocator alloc();
}
