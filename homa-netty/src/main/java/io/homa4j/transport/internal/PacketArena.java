package io.homa4j.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * The engine's allocator on an endpoint: cuts the packets it encodes one after the other out of one large
 * direct block, so that a run of packets for one GSO send lies contiguous in memory and {@link DatagramSink} can
 * hand the kernel the run as one slice of the block, instead of one pooled buffer per packet gathered into a
 * {@code CompositeByteBuf} (whose components and per-component NIO views for the iovec were most of the
 * endpoint's allocation per packet).
 *
 * <p>What comes from the block: requests for an exact size ({@code initialCapacity == maxCapacity}) of at most
 * {@link #maxPacketBytes}, which is how {@code PacketEncoder} asks for every packet. Everything else (message
 * buffers, error payloads, buffers that may grow) goes to the backing allocator unchanged.
 *
 * <p>Ownership: each packet is a retained slice of the block; its holder releases it like any buffer, and the
 * block is freed when the arena and every packet cut from it have let go. The arena keeps one reference to its
 * current block. When no packet of the block is alive any more (its reference count is back to the arena's
 * own), the next packet starts at the block's beginning again, so in steady state packets cost a recycled slice
 * object and no pool allocation; a block still referenced when full is left to its packets and a new one is
 * taken. {@link #close} drops the arena's reference; later requests go to the backing allocator.
 *
 * <p>Leak detection: the block is allocated from the backing allocator like any buffer, so Netty's leak
 * detector samples blocks (and then wraps every slice of a sampled block, an object per packet for that block's
 * life, as for any sampled buffer); a packet never released keeps its block from being freed and is reported as
 * the block's leak.
 *
 * <p>Threading: the thread that drives the engine (the event loop), as every engine allocation.
 */
final class PacketArena implements ByteBufAllocator {
    /** Block size: several full GSO sends (64 KB each), fewer than a grant window's worth of allocations. */
    static final int BLOCK_BYTES = 256 * 1024;

    private final ByteBufAllocator backing;
    private final int maxPacketBytes;
    private final int blockBytes;
    private ByteBuf block;
    private int used;
    private boolean closed;

    /** The packet cut last, until the sink claims it; with its offset in the block and its length. */
    private ByteBuf latest;
    private int latestOffset;
    private int latestLength;

    /** @param maxPacketBytes longest packet served from the block ({@code HomaConfig.maxUdpPayload()}) */
    public PacketArena(ByteBufAllocator backing, int maxPacketBytes) {
        this(backing, maxPacketBytes, BLOCK_BYTES);
    }

    PacketArena(ByteBufAllocator backing, int maxPacketBytes, int blockBytes) {
        if (maxPacketBytes <= 0 || blockBytes < maxPacketBytes) {
            throw new IllegalArgumentException("block of " + blockBytes + " B for packets of " + maxPacketBytes + " B");
        }
        this.backing = backing;
        this.maxPacketBytes = maxPacketBytes;
        this.blockBytes = blockBytes;
    }

    private boolean isPacket(int initialCapacity, int maxCapacity) {
        return !closed && initialCapacity == maxCapacity && initialCapacity > 0 && initialCapacity <= maxPacketBytes;
    }

    /** An empty buffer of exactly {@code length} writable bytes, cut from the block after the previous packet. */
    private ByteBuf packet(int length) {
        if (block == null || used + length > blockBytes || block.refCnt() == 1) {
            nextBlock();
        }
        ByteBuf packet = block.retainedSlice(used, length).clear();
        latest = packet;
        latestOffset = used;
        latestLength = length;
        used += length;
        return packet;
    }

    /** Starts over in the current block when no packet holds it, else takes a new one. */
    private void nextBlock() {
        used = 0;
        if (block != null && block.refCnt() == 1) {
            return;
        }
        if (block != null) {
            block.release(); // its packets are still in flight; the last of them frees it
            block = null;
        }
        block = backing.directBuffer(blockBytes, blockBytes);
    }

    /**
     * Where {@code packet} lies in the block, when it is the packet cut last and holds all its bytes, fully
     * written and unread ({@code -1} otherwise); claimed once: a second call for the same packet returns -1.
     * The sink calls this as the packet arrives, to see whether it continues the run before it.
     */
    int claimOffset(ByteBuf packet) {
        if (packet != latest) {
            return -1;
        }
        latest = null;
        return packet.readerIndex() == 0 && packet.writerIndex() == latestLength ? latestOffset : -1;
    }

    /**
     * The block the last claimed packet was cut from (valid until the next allocation); the sink takes one
     * retained slice of it covering a run of contiguous packets.
     */
    ByteBuf block() {
        return block;
    }

    /** Drops the arena's reference to its block (packets in flight keep it until released); idempotent. */
    public void close() {
        closed = true;
        latest = null;
        if (block != null) {
            block.release();
            block = null;
        }
    }

    @Override
    public ByteBuf buffer() {
        return backing.buffer();
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
        return backing.buffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
        return isPacket(initialCapacity, maxCapacity) ? packet(initialCapacity)
                : backing.buffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf ioBuffer() {
        return backing.ioBuffer();
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
        return backing.ioBuffer(initialCapacity);
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
        return isPacket(initialCapacity, maxCapacity) ? packet(initialCapacity)
                : backing.ioBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf heapBuffer() {
        return backing.heapBuffer();
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity) {
        return backing.heapBuffer(initialCapacity);
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
        return backing.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf directBuffer() {
        return backing.directBuffer();
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity) {
        return backing.directBuffer(initialCapacity);
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
        return isPacket(initialCapacity, maxCapacity) ? packet(initialCapacity)
                : backing.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeBuffer() {
        return backing.compositeBuffer();
    }

    @Override
    public CompositeByteBuf compositeBuffer(int maxNumComponents) {
        return backing.compositeBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer() {
        return backing.compositeHeapBuffer();
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        return backing.compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer() {
        return backing.compositeDirectBuffer();
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return backing.compositeDirectBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return backing.isDirectBufferPooled();
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
        return backing.calculateNewCapacity(minNewCapacity, maxCapacity);
    }
}
