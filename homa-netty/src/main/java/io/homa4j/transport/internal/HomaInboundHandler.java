package io.homa4j.transport.internal;

import io.homa4j.core.wire.PacketDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The one inbound handler of every socket of an endpoint: cuts each datagram back into the Homa packets it holds
 * and hands them to the engine in bursts, one burst per socket read (Netty's {@code channelReadComplete}), so
 * the engine makes one grant decision and one transmit pass per wake-up rather than per packet.
 *
 * <p>Coalesced datagrams: with UDP_GRO on, the kernel hands over up to 64 KB of same-flow datagrams in one read:
 * every one {@code gso_size} bytes long except a shorter last one (also runs of small control packets: four
 * 12-byte BUSY packets arrive as one 48-byte read). Netty 4.2.18's recvmmsg path delivers such a read as one
 * plain {@link DatagramPacket} without its segment size, so the size is taken from the first packet, which
 * declares its own length ({@link PacketDecoder#framedLength}), and the read is cut at that stride. A packet
 * that declares a wrong length is cut into pieces the engine then drops as malformed; a read longer than any
 * packet whose first bytes declare no usable length is counted in {@code oversizedDropped}.
 *
 * <p>Everything, garbage included, is the engine's to judge. Fault injection, when an endpoint is built with a
 * filter, happens before this handler in the socket's pipeline ({@code io.homa4j.faults.internal.FaultInjectingHandler}).
 *
 * <p>Shared by all the endpoint's sockets, which live on one event loop. Ownership: each packet handed on is a
 * retained slice the engine releases; the datagram itself is released here.
 */
@ChannelHandler.Sharable
public final class HomaInboundHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HomaInboundHandler.class);

    /** Packets handed to the engine in one call at most (a full GRO read is 44 packets at MTU 1500). */
    static final int MAX_BURST = 256;

    private final EngineDriver driver;
    private final TransportCounters counters;
    private final int maxPayloadBytes;

    private final InetSocketAddress[] burstSenders = new InetSocketAddress[MAX_BURST];
    private final ByteBuf[] burstPackets = new ByteBuf[MAX_BURST];
    private int burstCount;

    /** @param maxPayloadBytes longest UDP payload of one Homa packet ({@code HomaConfig.maxUdpPayload()}) */
    public HomaInboundHandler(EngineDriver driver, TransportCounters counters, int maxPayloadBytes) {
        this.driver = driver;
        this.counters = counters;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket datagram)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf content = datagram.content();
        InetSocketAddress sender = datagram.sender();
        int length = content.readableBytes();
        counters.datagramsReceived++;
        counters.bytesReceived += length;
        try {
            int start = content.readerIndex();
            int stride = PacketDecoder.framedLength(content, start, length);
            if (stride <= 0 || stride >= length) {
                // One packet, or garbage: the engine judges it, unless it is too long to be any packet at all.
                if (length > maxPayloadBytes) {
                    counters.oversizedDropped++;
                    return;
                }
                counters.packetsReceived++;
                addToBurst(sender, content.retainedSlice());
                return;
            }
            if (stride > maxPayloadBytes) {
                counters.oversizedDropped++;
                return;
            }
            counters.coalescedReceived++;
            for (int offset = 0; offset < length; offset += stride) {
                counters.packetsReceived++;
                addToBurst(sender, content.retainedSlice(start + offset, Math.min(stride, length - offset)));
            }
        } finally {
            content.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        deliverBurst();
    }

    private void addToBurst(InetSocketAddress sender, ByteBuf packet) {
        burstSenders[burstCount] = sender;
        burstPackets[burstCount++] = packet;
        if (burstCount == MAX_BURST) {
            deliverBurst();
        }
    }

    /**
     * Hands the packets read so far to the engine now rather than at the end of the reads; the engine releases
     * them, and with them the read buffer they are slices of. Event loop only.
     */
    void deliverBurst() {
        int count = burstCount;
        if (count == 0) {
            return;
        }
        burstCount = 0;
        counters.receiveBursts++;
        driver.onPackets(burstSenders, burstPackets, count);
        for (int i = 0; i < count; i++) {
            burstSenders[i] = null; // the engine cleared the packet slots; do not pin the addresses
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A failed read (ENOMEM, an ICMP error reported on the socket): the socket stays usable, nothing is lost
        // that retransmission will not repair. Count it; log the first. Errors of a socket being closed are not
        // failures of the endpoint.
        if (!ctx.channel().isOpen()) {
            return;
        }
        counters.socketErrors++;
        if (counters.socketErrors == 1) {
            LOG.warn("UDP socket error on {} (counted in socketErrors; logged once)", ctx.channel(), cause);
        }
    }

    /** Releases the packets of a burst not yet handed on. */
    public void close() {
        for (int i = 0; i < burstCount; i++) {
            burstPackets[i].release();
            burstPackets[i] = null;
            burstSenders[i] = null;
        }
        burstCount = 0;
    }
}
