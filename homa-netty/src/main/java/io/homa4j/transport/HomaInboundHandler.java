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
    private final FilterPath path;

    /** @param maxPayloadBytes longest UDP payload accepted ({@code HomaConfig.maxUdpPayload()}) */
    public HomaInboundHandler(EngineDriver driver, PacketFilter filter, TransportCounters counters,
                              int maxPayloadBytes) {
        this.driver = driver;
        this.filter = filter;
        this.counters = counters;
        this.maxPayloadBytes = maxPayloadBytes;
        DelayLine.Exit toEngine = (from, level, packet) -> driver.onPacket(from, packet);
        this.path = new FilterPath(driver::loop, toEngine, toEngine, () -> counters.filteredInbound++,
                ByteBufAllocator.DEFAULT);
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
        path.close();
    }
}
