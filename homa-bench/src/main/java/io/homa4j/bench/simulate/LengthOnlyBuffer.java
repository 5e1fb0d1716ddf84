package io.homa4j.bench.simulate;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * A message buffer of the rack simulation that has a capacity and indexes but no bytes: writes into it are
 * dropped and reads from it leave the destination as it was. The rack's payloads are never read (requests are
 * slices of one shared pattern, servers echo them, clients only count lengths), so moving their bytes is work the
 * simulated protocol does not depend on: the engines still copy every segment into and out of packets, as they
 * would over UDP, but a copy to or from this buffer costs nothing, no memory backs a 10 MB message, and nothing is
 * zeroed. Packets, their headers and every small message (engine-made error payloads among them) stay real
 * buffers ({@link RecyclingAllocator}).
 *
 * <p>What the simulation computes (every packet, time and result) is the same with real buffers: the protocol
 * reads headers only. {@code io.homa4j.core.sim} tests with byte-exact echoes (HomaHost, CRC-32C) use real buffers.
 * Reference counted as any buffer; nothing to free. Not thread-safe.
 */
final class LengthOnlyBuffer extends AbstractReferenceCountedByteBuf {
    private final ByteBufAllocator alloc;
    private int capacity;

    LengthOnlyBuffer(ByteBufAllocator alloc, int initialCapacity, int maxCapacity) {
        super(maxCapacity);
        this.alloc = alloc;
        this.capacity = initialCapacity;
    }

    @Override
    protected void deallocate() {
    }

    /** What every operation that needs real bytes throws. */
    private static UnsupportedOperationException noBytes(String what) {
        return new UnsupportedOperationException("a length-only buffer has no bytes " + what);
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        checkNewCapacity(newCapacity);
        capacity = newCapacity;
        trimIndicesToCapacity(newCapacity);
        return this;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    @SuppressWarnings("deprecation")
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return null;
    }

    @Override
    public boolean isDirect() {
        return true;
    }

    // ------------------------------------------------------------------ bulk transfers: lengths only

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkIndex(index, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkIndex(index, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        checkIndex(index, dst.remaining());
        dst.position(dst.limit());
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) {
        throw noBytes("to write out");
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) {
        throw noBytes("to write out");
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) {
        throw noBytes("to write out");
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkIndex(index, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkIndex(index, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        checkIndex(index, src.remaining());
        src.position(src.limit());
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) {
        throw noBytes("to take from a stream");
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) {
        throw noBytes("to take from a channel");
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) {
        throw noBytes("to take from a channel");
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        return new LengthOnlyBuffer(alloc, length, maxCapacity()).writerIndex(length);
    }

    @Override
    public int nioBufferCount() {
        return 1;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        throw noBytes("in memory");
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        throw noBytes("in memory");
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        throw noBytes("in memory");
    }

    @Override
    public boolean hasArray() {
        return false;
    }

    @Override
    public byte[] array() {
        throw noBytes("in an array");
    }

    @Override
    public int arrayOffset() {
        throw noBytes("in an array");
    }

    @Override
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw noBytes("in memory");
    }

    // ------------------------------------------------------------------ single values: zero, dropped

    @Override
    protected byte _getByte(int index) {
        return 0;
    }

    @Override
    protected short _getShort(int index) {
        return 0;
    }

    @Override
    protected short _getShortLE(int index) {
        return 0;
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        return 0;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        return 0;
    }

    @Override
    protected int _getInt(int index) {
        return 0;
    }

    @Override
    protected int _getIntLE(int index) {
        return 0;
    }

    @Override
    protected long _getLong(int index) {
        return 0;
    }

    @Override
    protected long _getLongLE(int index) {
        return 0;
    }

    @Override
    protected void _setByte(int index, int value) {
    }

    @Override
    protected void _setShort(int index, int value) {
    }

    @Override
    protected void _setShortLE(int index, int value) {
    }

    @Override
    protected void _setMedium(int index, int value) {
    }

    @Override
    protected void _setMediumLE(int index, int value) {
    }

    @Override
    protected void _setInt(int index, int value) {
    }

    @Override
    protected void _setIntLE(int index, int value) {
    }

    @Override
    protected void _setLong(int index, long value) {
    }

    @Override
    protected void _setLongLE(int index, long value) {
    }
}
