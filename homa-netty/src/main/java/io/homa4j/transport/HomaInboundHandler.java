package io.homa4j.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The one inbound handler of every socket of an endpoint: hands each datagram's payload to the engine, after
 * dropping (and counting) datagrams too long to be Homa packets of this configuration and those a
 * {@link PacketFilter} rejects. Everything else, garbage included, is the engine's to judge.
 *
 * <p>Shared by all the endpoint's sockets, which live on one event loop.
 */
@ChannelHandler.Sharable
public final class HomaInboundHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HomaInboundHandler.class);

    private final EngineDriver driver;
    private final PacketFilter filter;
    private final TransportCounters counters;
    private final int maxPayloadBytes;
    private final PacketPath path = new InboundPath();
    private final DelayLine delayLine;

    /** @param maxPayloadBytes longest UDP payload accepted ({@code HomaConfig.maxUdpPayload()}) */
    public HomaInboundHandler(EngineDriver driver, PacketFilter filter, TransportCounters counters,
                              int maxPayloadBytes) {
        this.driver = driver;
        this.filter = filter;
        this.counters = counters;
        this.maxPayloadBytes = maxPayloadBytes;
        this.delayLine = new DelayLine(driver::loop, (from, level, packet) -> driver.onPacket(from, packet));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket datagram)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf payload = datagram.content();
        int length = payload.readableBytes();
        counters.datagramsReceived++;
        counters.bytesReceived += length;
        if (length > maxPayloadBytes) {
            // The read buffer holds one byte more than the largest valid packet, so truncation shows here.
            counters.oversizedDropped++;
            payload.release();
            return;
        }
        filter.inbound(datagram.sender(), payload, path);
    }

    /** Releases the datagrams the filter holds back; those arriving later are still filtered and passed on. */
    public void close() {
        delayLine.close();
    }

    /** The filter's way to the engine. */
    private final class InboundPath implements PacketPath {
        @Override
        public void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            driver.onPacket(address, packet);
        }

        @Override
        public void forwardLater(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            delayLine.hold(delayNanos, address, priorityLevel, packet);
        }

        @Override
        public void drop(ByteBuf packet) {
            counters.filteredInbound++;
            packet.release();
        }

        @Override
        public ByteBufAllocator alloc() {
            return ByteBufAllocator.DEFAULT;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A datagram socket stays usable after a failed send or read; count, log quietly, go on.
        counters.socketErrors++;
        LOG.debug("socket error on {}", ctx.channel(), cause);
    }
}
