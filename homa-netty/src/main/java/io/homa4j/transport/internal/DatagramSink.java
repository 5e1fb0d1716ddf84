package io.homa4j.transport.internal;

import io.homa4j.core.PacketSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DatagramPacket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The engine's {@link PacketSink} on UDP sockets: picks the socket of the packet's priority level (so the
 * packet leaves with that level's TOS byte), and turns runs of equal-size packets to one peer at one level into
 * a single UDP GSO send.
 *
 * <p>Contiguous runs: packets the engine allocates from {@link #packetAllocator()} are cut one after the other
 * from one block ({@link PacketArena}); a run of such packets, sent in the order they were cut, goes to the
 * kernel as one slice of the block (one iovec, no per-packet component). A run with any other packet in it is
 * gathered into a {@code CompositeByteBuf} as before.
 *
 * <p>Batching: {@link #send} only queues. A run is consecutive packets with the same peer, level and length (the
 * last may be shorter, as GSO allows), capped at {@link #MAX_GSO_SEGMENTS} segments and {@link #MAX_GSO_BYTES}
 * bytes. Without {@link #deferSocketFlush}, {@link #flush} (called by the engine at the end of each engine method)
 * writes the run and flushes the sockets. With it (the event loop's mode), the run stays open across the engine's
 * flushes until {@link #flushNow} at the end of the event-loop turn: the requests of 64 calls an application
 * queued, or the responses of a burst of requests, each one engine method, leave as one GSO send per peer
 * instead of one datagram each. Plain writes of one flush reach the kernel as one sendmmsg. A turn that writes
 * more than {@link #FLUSH_AFTER_BYTES} flushes every time it has written that much.
 *
 * <p>Runs may therefore hold packets of different RPCs and types; the receiver, which gets a coalesced run as
 * one UDP GRO read, cuts it by the length each packet declares ({@code PacketDecoder.framedLength}), so every
 * packet handed to this sink must be a Homa packet (the {@link PacketSink} contract).
 *
 * <p>GSO fallback: when the kernel refuses a GSO send (EIO when the device cannot checksum, EINVAL/ENOTSUP
 * elsewhere), its packets are re-sent one by one and GSO stays off for this sink from then on, logged once.
 *
 * <p>Fault injection, when configured, sits in each socket's pipeline ({@code io.homa4j.faults}), not here.
 *
 * <p>Threading: event loop only. Ownership: every packet given to {@link #send} is released exactly once.
 */
public final class DatagramSink implements PacketSink {
    private static final Logger LOG = LoggerFactory.getLogger(DatagramSink.class);

    /** Linux's UDP_MAX_SEGMENTS. */
    public static final int MAX_GSO_SEGMENTS = 64;
    /** Largest UDP payload of one IPv4 datagram, hence of one GSO send. */
    public static final int MAX_GSO_BYTES = 65_535 - 20 - 8;
    /**
     * Bytes written since the sockets' last flush after which they are flushed at once rather than at the end of
     * the turn. A turn that sends half a megabyte (a large message's unscheduled bytes, a window of granted
     * ones) otherwise hands the kernel nothing until it has encoded all of it, and the receiver, on another
     * core, waits idle for the whole of it; flushed every two full GSO sends (2 x 44 x 1,472 B), the receiver starts on the first while
     * the sender encodes the next, and the packets' memory is free again for the sender's next ones
     * ({@link PacketArena}). Small messages never reach it: their turns still end in one sendmmsg.
     */
    static final int FLUSH_AFTER_BYTES = 100_000;

    private final Channel[] channelByLevel;
    /**
     * Per level, when it was first written to since its last flush (a running count; 0: nothing to flush).
     * Sockets are flushed in the order of their first writes because a message's packets change level
     * mid-message (unscheduled bytes at one level, granted bytes at the level the receiver chose): flushed by level number, a GRANT answered in the same turn sent the
     * granted bytes ahead of the unscheduled ones still queued at another socket, and the receiver dropped them
     * as too far ahead of its data (1 MB echo: 6,796 drops and the retransmissions after them).
     */
    private final long[] dirtySince;
    private long writes;
    private int unflushedBytes;
    private final TransportCounters counters;
    private final ByteBufAllocator allocator;
    private final GsoPacketFactory gsoFactory;
    private final PacketArena arena;
    private boolean gsoEnabled;
    private boolean deferSocketFlush;
    private boolean closed;

    private final ByteBuf[] run = new ByteBuf[MAX_GSO_SEGMENTS];
    private int runCount;
    private int runBytes;
    private int runSegmentSize;
    private boolean runEnded; // the run's last packet was shorter than the segment size
    private InetSocketAddress runPeer;
    private int runLevel;
    /** The block the run's packets were cut from, contiguous from {@link #runBlockStart}; null when not. */
    private ByteBuf runBlock;
    private int runBlockStart;

    /** Makes the GSO message for a run; the epoll transport's {@code SegmentedDatagramPacket}. */
    @FunctionalInterface
    public interface GsoPacketFactory {
        DatagramPacket create(ByteBuf segments, int segmentSize, InetSocketAddress recipient);
    }

    /**
     * @param channelByLevel the socket of each priority level (entries may repeat when sockets are shared)
     * @param gsoFactory     builds GSO messages, or null when this transport has no GSO
     */
    public DatagramSink(Channel[] channelByLevel, TransportCounters counters,
                        GsoPacketFactory gsoFactory) {
        if (channelByLevel.length == 0) {
            throw new IllegalArgumentException("no channels");
        }
        this.channelByLevel = channelByLevel.clone();
        this.dirtySince = new long[channelByLevel.length];
        this.counters = counters;
        this.allocator = channelByLevel[0].alloc();
        this.arena = new PacketArena(allocator, MAX_GSO_BYTES);
        this.gsoFactory = gsoFactory;
        this.gsoEnabled = gsoFactory != null;
    }

    /**
     * The allocator the engine should take its packets from: runs of its packets then reach the kernel without
     * being gathered ({@link PacketArena}). Event loop only; closed with this sink.
     */
    public ByteBufAllocator packetAllocator() {
        return arena;
    }

    /** True while runs go out as GSO sends. */
    public boolean gsoEnabled() {
        return gsoEnabled;
    }

    private int level(int priorityLevel) {
        return Math.max(0, Math.min(channelByLevel.length - 1, priorityLevel));
    }

    @Override
    public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
        if (closed) {
            packet.release();
            return;
        }
        int level = level(priorityLevel);
        int length = packet.readableBytes();
        int blockOffset = arena.claimOffset(packet);
        if (!gsoEnabled) {
            write(level, peer, packet);
            flushIfLarge();
            return;
        }
        if (runCount > 0 && extendsRun(peer, level, length)) {
            if (runBlock != null && (blockOffset != runBlockStart + runBytes || arena.block() != runBlock)) {
                runBlock = null; // no longer one piece of memory: gathered at emission
            }
            run[runCount++] = packet;
            runBytes += length;
            runEnded = length < runSegmentSize;
            return;
        }
        emitRun();
        run[0] = packet;
        runCount = 1;
        runBytes = length;
        runSegmentSize = length;
        runEnded = false;
        runPeer = peer;
        runLevel = level;
        runBlock = blockOffset >= 0 ? arena.block() : null;
        runBlockStart = blockOffset;
    }

    private boolean extendsRun(InetSocketAddress peer, int level, int length) {
        return !runEnded && level == runLevel && length <= runSegmentSize && length > 0
                && runCount < MAX_GSO_SEGMENTS && runBytes + length <= MAX_GSO_BYTES
                && peer.equals(runPeer);
    }

    /**
     * While set, {@link #flush()} does nothing and {@link #flushNow()}, which the engine driver calls at the end
     * of the event-loop turn, writes the pending run and flushes the sockets: every packet the engine sends during
     * one turn (a grant per data packet of a recvmmsg batch, the requests of calls queued by application threads)
     * then reaches the kernel in as few GSO sends, and one sendmmsg per socket, as their peers and lengths allow.
     */
    public void deferSocketFlush(boolean defer) {
        this.deferSocketFlush = defer;
    }

    @Override
    public void flush() {
        if (deferSocketFlush) {
            return;
        }
        flushNow();
    }

    /** Writes the pending run and flushes every socket written to since the last flush. */
    public void flushNow() {
        emitRun();
        flushSockets();
    }

    private void flushIfLarge() {
        if (unflushedBytes >= FLUSH_AFTER_BYTES) {
            flushSockets();
        }
    }

    /** Flushes every socket written to since the last flush, in the order of their first writes. */
    private void flushSockets() {
        unflushedBytes = 0;
        // Few levels (8), so a scan per flush; a level written again while flushing (a refused GSO batch sent
        // again datagram by datagram) is dirty again with a later mark and flushed after the others.
        for (int level; (level = firstDirtyLevel()) >= 0; ) {
            dirtySince[level] = 0;
            channelByLevel[level].flush();
        }
    }

    private int firstDirtyLevel() {
        int first = -1;
        for (int level = 0; level < dirtySince.length; level++) {
            if (dirtySince[level] != 0 && (first < 0 || dirtySince[level] < dirtySince[first])) {
                first = level;
            }
        }
        return first;
    }

    private void markDirty(int level) {
        if (dirtySince[level] == 0) {
            dirtySince[level] = ++writes;
        }
    }

    /** Drops everything queued and refuses later packets; releases every buffer it holds. */
    public void close() {
        closed = true;
        for (int i = 0; i < runCount; i++) {
            run[i].release();
            run[i] = null;
        }
        runCount = 0;
        runBlock = null;
        arena.close();
    }

    private void emitRun() {
        int count = runCount;
        if (count == 0) {
            return;
        }
        runCount = 0;
        ByteBuf block = runBlock;
        runBlock = null;
        if (count == 1 || !gsoEnabled) {
            for (int i = 0; i < count; i++) {
                write(runLevel, runPeer, run[i]);
                run[i] = null;
            }
            flushIfLarge();
            return;
        }
        ByteBuf segments;
        if (block != null) {
            // The packets lie one after the other in the block: one slice of it is the whole run. The slice holds
            // the block, so the packets' own references can go now.
            segments = block.retainedSlice(runBlockStart, runBytes);
            for (int i = 0; i < count; i++) {
                run[i].release();
                run[i] = null;
            }
        } else {
            // Not through the allocator: it wraps a sample of composites for leak detection, and each wrapped one
            // records a stack trace when released, a cost on every large send. The segments inside are tracked on
            // their own, so a leaked composite still shows.
            CompositeByteBuf gathered = new CompositeByteBuf(allocator, true, count);
            for (int i = 0; i < count; i++) {
                gathered.addComponent(true, run[i]);
                run[i] = null;
            }
            segments = gathered;
        }
        writeGso(runLevel, runPeer, segments, runSegmentSize, count);
        flushIfLarge();
    }

    private void write(int level, InetSocketAddress peer, ByteBuf packet) {
        counters.datagramsSent++;
        counters.bytesSent += packet.readableBytes();
        unflushedBytes += packet.readableBytes();
        Channel channel = channelByLevel[level];
        markDirty(level);
        channel.write(new DatagramPacket(packet, peer), channel.voidPromise());
    }

    /** Sends {@code segments} (a run, {@code count} packets) as one GSO message; takes ownership of it. */
    private void writeGso(int level, InetSocketAddress peer, ByteBuf segments, int segmentSize, int count) {
        Channel channel = channelByLevel[level];
        DatagramPacket message;
        try {
            message = gsoFactory.create(segments.retain(), segmentSize, peer);
        } catch (RuntimeException unsupported) {
            segments.release();
            disableGso(unsupported);
            resendPlain(level, peer, segments, segmentSize);
            return;
        }
        counters.gsoSends++;
        counters.gsoSegments += count;
        counters.datagramsSent += count;
        counters.bytesSent += segments.readableBytes();
        unflushedBytes += segments.readableBytes();
        markDirty(level);
        ChannelFuture future = channel.write(message);
        future.addListener(new GsoOutcome(level, peer, segments, segmentSize, count));
    }

    /** Keeps the segments alive until the GSO send's outcome is known, to re-send them plainly if it failed. */
    private final class GsoOutcome implements ChannelFutureListener {
        private final int level;
        private final InetSocketAddress peer;
        private final ByteBuf segments;
        private final int segmentSize;
        private final int count;

        GsoOutcome(int level, InetSocketAddress peer, ByteBuf segments, int segmentSize, int count) {
            this.level = level;
            this.peer = peer;
            this.segments = segments;
            this.segmentSize = segmentSize;
            this.count = count;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            if (future.isSuccess() || closed || !future.channel().isOpen()) {
                segments.release();
                return;
            }
            counters.gsoFallbacks++;
            counters.datagramsSent -= count;
            counters.bytesSent -= segments.readableBytes();
            disableGso(future.cause());
            resendPlain(level, peer, segments, segmentSize);
            channelByLevel[level].flush();
            dirtySince[level] = 0;
        }
    }

    /** Sends each segment of {@code segments} as its own datagram, then releases {@code segments}. */
    private void resendPlain(int level, InetSocketAddress peer, ByteBuf segments, int segmentSize) {
        try {
            for (int offset = segments.readerIndex(); offset < segments.writerIndex(); offset += segmentSize) {
                int length = Math.min(segmentSize, segments.writerIndex() - offset);
                write(level, peer, segments.retainedSlice(offset, length));
            }
        } finally {
            segments.release();
        }
    }

    private void disableGso(Throwable cause) {
        if (gsoEnabled) {
            gsoEnabled = false;
            LOG.warn("UDP GSO send refused ({}); sending datagrams one by one from now on", String.valueOf(cause));
        }
    }
}
