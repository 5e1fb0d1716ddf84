package io.homa4j.faults.internal;

import io.homa4j.faults.DatagramFilter;
import io.homa4j.transport.internal.TransportCounters;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;

/**
 * Puts a {@link DatagramFilter} between one socket and the rest of its pipeline: every datagram read passes the
 * filter's {@code inbound} before it reaches the endpoint's inbound handler, every datagram written passes its
 * {@code outbound} before it reaches the socket. Installed in a socket's pipeline only when an endpoint is built
 * with a filter, so production endpoints have no filtering step at all (Aeron's model: loss generators are
 * swapped in when configured, never consulted on the production path). The endpoint sends no GSO batches
 * through a filtered socket, so the filter judges single datagrams.
 *
 * <p>Delayed datagrams leave the filter's {@link DelayLine} later, outside any read or write: inbound ones with a
 * read-complete of their own (so they reach the engine at once), outbound ones with a flush.
 *
 * <p>Ownership: the filter takes each datagram's content; the envelope is dropped. Threading: the socket's event
 * loop. One instance per socket (each knows its socket's priority level); {@link #close} releases what the
 * delay lines hold.
 */
public final class FaultInjectingHandler extends ChannelDuplexHandler {
    private final DatagramFilter filter;
    private final int level;
    private final TransportCounters counters;
    private FilterPath inboundPath;
    private FilterPath outboundPath;

    /**
     * @param filter   the filter (shared by the endpoint's sockets, on one event loop)
     * @param level    the priority level of this socket's outbound datagrams
     * @param counters where filtered-out datagrams are counted
     */
    public FaultInjectingHandler(DatagramFilter filter, int level, TransportCounters counters) {
        this.filter = filter;
        this.level = level;
        this.counters = counters;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        DelayLine.Exit read = (from, ignoredLevel, packet) -> context.fireChannelRead(
                new DatagramPacket(packet, localAddress(context), from));
        DelayLine.Exit readLater = (from, ignoredLevel, packet) -> {
            read.pass(from, ignoredLevel, packet);
            context.fireChannelReadComplete();
        };
        DelayLine.Exit write = (to, ignoredLevel, packet) ->
                context.write(new DatagramPacket(packet, to), context.voidPromise());
        DelayLine.Exit writeLater = (to, ignoredLevel, packet) ->
                context.writeAndFlush(new DatagramPacket(packet, to), context.voidPromise());
        inboundPath = new FilterPath(context::executor, read, readLater, counters::countFilteredInbound,
                context.alloc());
        outboundPath = new FilterPath(context::executor, write, writeLater, counters::countFilteredOutbound,
                context.alloc());
    }

    /** The socket's address, the recipient of what it reads; null on a channel without one (tests). */
    private static InetSocketAddress localAddress(ChannelHandlerContext context) {
        return context.channel().localAddress() instanceof InetSocketAddress local ? local : null;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (!(msg instanceof DatagramPacket datagram)) {
            context.fireChannelRead(msg);
            return;
        }
        ByteBuf content = datagram.content();
        filter.inbound(datagram.sender(), content, inboundPath);
    }

    @Override
    public void write(ChannelHandlerContext context, Object msg, ChannelPromise promise) {
        if (!(msg instanceof DatagramPacket datagram) || datagram.recipient() == null) {
            context.write(msg, promise);
            return;
        }
        filter.outbound(datagram.recipient(), level, datagram.content(), outboundPath);
        promise.trySuccess(); // the datagram is the filter's now: dropped, delayed or written
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext context) {
        close();
    }

    /** Releases the datagrams held back in either direction. Idempotent. */
    public void close() {
        if (inboundPath != null) {
            inboundPath.close();
            outboundPath.close();
        }
    }
}
