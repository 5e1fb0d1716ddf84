package io.homa4j.transport.internal;

import io.homa4j.core.PacketBatch;
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
 * <p>Shared by all the endpoint's sockets, which live on one event loop. Ownership: the packets go to the engine
 * as regions of the datagrams they were read in ({@link PacketBatch}), so a packet costs no slice, reference
 * count or recycling; this handler keeps each datagram until the burst it is in has been handed over, then
 * releases it.
 */
@ChannelHandler.Sharable
public final class HomaInboundHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HomaInboundHandler.class);

    /** Packets handed to the engine in one call at most (a full GRO read is 44 packets at MTU 1500). */
    static final int MAX_BURST = 256;

    private final EngineDriver driver;
    private final TransportCounters counters;
    private final int maxPayloadBytes;

    private final PacketBatch burst = new PacketBatch(MAX_BURST);
    /** The reads the burst's packets lie in, each held once; every read holds at least one packet of the burst. */
    private final ByteBuf[] heldReads = new ByteBuf[MAX_BURST];
    private int heldCount;

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
        int start = content.readerIndex();
        int stride = PacketDecoder.framedLength(content, start, length);
        boolean onePacket = stride <= 0 || stride >= length;
        if (ctx.channel().config().getRecvByteBufAllocator() instanceof ReusedReadBuffer reads) {
            // how the socket's next read is made depends on how many packets its reads bring
            reads.packetsRead(onePacket ? 1 : (length + stride - 1) / stride);
        }
        if (onePacket) {
            // One packet, or garbage: the engine judges it, unless it is too long to be any packet at all.
            if (length > maxPayloadBytes) {
                counters.oversizedDropped++;
                content.release();
                return;
            }
            counters.packetsReceived++;
            hold(content);
            addToBurst(sender, content, start, length);
            return;
        }
        if (stride > maxPayloadBytes) {
            counters.oversizedDropped++;
            content.release();
            return;
        }
        counters.coalescedReceived++;
        hold(content);
        for (int offset = 0; offset < length; offset += stride) {
            counters.packetsReceived++;
            addToBurst(sender, content, start + offset, Math.min(stride, length - offset));
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        deliverBurst();
    }

    /** Takes this handler's one reference to a read whose packets join the burst (a full burst goes first). */
    private void hold(ByteBuf read) {
        if (burst.isFull()) {
            deliverBurst();
        }
        heldReads[heldCount++] = read;
    }

    private void addToBurst(InetSocketAddress sender, ByteBuf read, int index, int length) {
        if (burst.isFull()) {
            // Hand over what we have; the read being cut outlives that delivery, its later packets join the next.
            read.retain();
            deliverBurst();
            heldReads[heldCount++] = read;
        }
        burst.add(sender, read, index, length);
    }

    /** Whether this socket's event loop slept since the engine's last turn (see EngineDriver#sleptSinceLastTurn). */
    boolean loopSleptSinceLastTurn() {
        return driver.sleptSinceLastTurn();
    }

    /**
     * Hands the packets read so far to the engine now rather than at the end of the reads, then releases the
     * reads they lay in (the engine copied what it keeps). Event loop only.
     */
    void deliverBurst() {
        if (burst.isEmpty()) {
            return;
        }
        counters.receiveBursts++;
        try {
            driver.onPackets(burst);
        } finally {
            burst.clear();
            releaseHeldReads();
        }
    }

    private void releaseHeldReads() {
        for (int i = 0; i < heldCount; i++) {
            heldReads[i].release();
            heldReads[i] = null;
        }
        heldCount = 0;
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

    /** Drops the packets of a burst not yet handed on and releases the reads they lay in. */
    public void close() {
        burst.clear();
        releaseHeldReads();
    }
}
