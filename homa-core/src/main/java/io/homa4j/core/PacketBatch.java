package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * The packets of one socket read, each a region of a buffer the reader keeps: what a transport hands to
 * {@link PacketDriven#onPackets(PacketBatch, long)} after a {@code recvmmsg} or UDP GRO read. A GRO read of a peer's
 * GSO send holds up to 44 packets back to back; describing them as regions of that one buffer costs no object, no
 * reference count and no recycling per packet, where a slice per packet cost all three.
 *
 * <p>Ownership: the batch neither retains nor releases its buffers. Whoever adds a region keeps its buffer
 * readable until the {@code onPackets} call that reads the batch has returned, and releases it after; the
 * callee copies what it keeps. One batch is filled and read on one thread and reused: {@link #clear()} drops the
 * references it holds so an idle batch pins nothing.
 */
public final class PacketBatch {
    private final InetSocketAddress[] senders;
    private final ByteBuf[] buffers;
    private final int[] indexes;
    private final int[] lengths;
    private int count;

    /** @param capacity most packets one batch holds ({@link #isFull()} then tells the reader to hand it over) */
    public PacketBatch(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        senders = new InetSocketAddress[capacity];
        buffers = new ByteBuf[capacity];
        indexes = new int[capacity];
        lengths = new int[capacity];
    }

    /**
     * Adds the packet of {@code length} bytes at {@code index} of {@code buffer}, sent by {@code sender}.
     *
     * @throws IllegalStateException when the batch is full
     * @throws IndexOutOfBoundsException when the region lies outside the buffer's readable bytes
     */
    public void add(InetSocketAddress sender, ByteBuf buffer, int index, int length) {
        if (count == buffers.length) {
            throw new IllegalStateException("batch full (" + count + " packets)");
        }
        if (index < buffer.readerIndex() || length < 0 || index + length > buffer.writerIndex()) {
            throw new IndexOutOfBoundsException("packet [" + index + ", " + (index + length)
                    + ") outside readable bytes [" + buffer.readerIndex() + ", " + buffer.writerIndex() + ")");
        }
        senders[count] = sender;
        buffers[count] = buffer;
        indexes[count] = index;
        lengths[count] = length;
        count++;
    }

    public int count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    public boolean isFull() {
        return count == buffers.length;
    }

    public InetSocketAddress sender(int i) {
        return senders[checked(i)];
    }

    /** The buffer packet {@code i} lies in; not retained for the caller (see the class's ownership rule). */
    public ByteBuf buffer(int i) {
        return buffers[checked(i)];
    }

    /** Where packet {@code i} starts in {@link #buffer(int)}. */
    public int index(int i) {
        return indexes[checked(i)];
    }

    public int length(int i) {
        return lengths[checked(i)];
    }

    /** Empties the batch and drops its references to buffers and senders. */
    public void clear() {
        for (int i = 0; i < count; i++) {
            senders[i] = null;
            buffers[i] = null;
        }
        count = 0;
    }

    private int checked(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("packet " + i + " of " + count);
        }
        return i;
    }
}
