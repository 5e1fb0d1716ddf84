package io.homa4j.grpc.internal;

import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * The homa-grpc envelope: one gRPC unary request or response in one Homa message. A flyweight: {@link #wrap}
 * checks a frame's structure once, bounds included, and the accessors then read fields in place, without copying.
 * The static {@code encode} methods build frames.
 *
 * <pre>
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |  magic 0x67   |  version 1    |  kind         |  flags        |   kind: 1 request, 2 response
 *  +---------------+---------------+---------------+---------------+   flags: bit 0 message gzip-compressed,
 *  |  status code  |  0            |  text length (u16)            |          bit 1 a message follows
 *  +---------------+---------------+-------------------------------+
 *  |  headers length (u32)                                         |
 *  +---------------------------------------------------------------+
 *  |  trailers length (u32, 0 in a request)                        |
 *  +---------------------------------------------------------------+
 *  |  text (UTF-8): the method's full name in a request,           |
 *  |                the status description in a response          |
 *  +---------------------------------------------------------------+
 *  |  headers: request headers, or the response's initial headers  |
 *  +---------------------------------------------------------------+
 *  |  trailers (responses only)                                    |
 *  +---------------------------------------------------------------+
 *  |  message: the serialized protobuf (or other) message, to the  |
 *  |  end of the Homa message; present when flag bit 1 is set      |
 *  +---------------------------------------------------------------+
 *
 *  a metadata block is a run of entries, each
 *  +---------------+-------------------------------+------ ... ------+------ ... ------+
 *  | key length u8 | value length (u16)            | key (ASCII)     | value bytes     |
 *  +---------------+-------------------------------+------ ... ------+------ ... ------+
 *  (keys ending in "-bin" carry raw bytes, the others ASCII text; one entry per value)
 * </pre>
 *
 * <p>All integers are big-endian. The deadline is not in the envelope: it travels as the Homa call's own
 * deadline, which the server reads as {@code RpcContext.deadlineNanos()}. A request always carries its message
 * (flag bit 1 set); a response carries one only with status code 0 (OK). A frame whose version, kind or flags
 * this code does not know is malformed, so a later version that changes the layout is refused, not misread.
 *
 * <p>Not thread-safe: one instance per thread, re-wrapped for each frame. The instance does not own the buffer.
 */
public final class GrpcFrame {
    public static final int MAGIC = 0x67;
    public static final int VERSION = 1;
    public static final int KIND_REQUEST = 1;
    public static final int KIND_RESPONSE = 2;
    public static final int FLAG_GZIP = 1;
    public static final int FLAG_HAS_MESSAGE = 2;
    private static final int KNOWN_FLAGS = FLAG_GZIP | FLAG_HAS_MESSAGE;
    public static final int HEADER_LENGTH = 16;
    /** Longest text (method name or status description) the u16 field holds; longer descriptions are cut. */
    public static final int MAX_TEXT_BYTES = 0xFFFF;
    private static final int MAX_KEY_BYTES = 0xFF;
    private static final int MAX_VALUE_BYTES = 0xFFFF;
    private static final int ENTRY_HEADER = 3;
    /** HTTP/2's per-entry overhead, which gRPC counts in its metadata size limits; counted here the same way. */
    private static final int ENTRY_OVERHEAD = 32;

    private ByteBuf buf;
    private int base;
    private int end;

    /**
     * Checks {@code frame}'s structure (from its reader index to its writer index) and wraps it.
     *
     * @return null when well-formed, otherwise what is wrong (and the flyweight must not be read)
     */
    public String wrap(ByteBuf frame) {
        this.buf = frame;
        this.base = frame.readerIndex();
        this.end = frame.writerIndex();
        int length = end - base;
        if (length < HEADER_LENGTH) {
            return "frame of " + length + " bytes is shorter than the " + HEADER_LENGTH + "-byte header";
        }
        if (buf.getUnsignedByte(base) != MAGIC) {
            return "not a homa-grpc frame (magic " + buf.getUnsignedByte(base) + ")";
        }
        if (version() != VERSION) {
            return "unsupported homa-grpc frame version " + version();
        }
        int kind = kind();
        if (kind != KIND_REQUEST && kind != KIND_RESPONSE) {
            return "unknown frame kind " + kind;
        }
        int flags = flags();
        if ((flags & ~KNOWN_FLAGS) != 0) {
            return "unknown flags " + Integer.toHexString(flags);
        }
        if (buf.getUnsignedByte(base + 5) != 0) {
            return "reserved byte is not 0";
        }
        if (kind == KIND_REQUEST && (statusCode() != 0 || trailersLength() != 0 || !hasMessage())) {
            return "a request carries no status or trailers, and a message";
        }
        if (kind == KIND_RESPONSE && statusCode() != 0 && hasMessage()) {
            return "a failed response carries no message";
        }
        if (kind == KIND_RESPONSE && statusCode() > Status.Code.UNAUTHENTICATED.value()) {
            return "unknown status code " + statusCode();
        }
        long regions = (long) HEADER_LENGTH + textLength() + headersLengthLong() + trailersLengthLong();
        if (regions > length) {
            return "text, headers and trailers (" + regions + " bytes with the header) overrun the " + length
                    + "-byte frame";
        }
        if (!hasMessage() && regions != length) {
            return (length - regions) + " bytes after the trailers of a frame without a message";
        }
        String problem = checkEntries(headersOffset(), headersLength());
        return problem != null ? problem : checkEntries(trailersOffset(), trailersLength());
    }

    /** Walks a metadata block's entries: each within the block, keys non-empty. */
    private String checkEntries(int offset, int length) {
        int at = offset;
        int blockEnd = offset + length;
        while (at < blockEnd) {
            if (blockEnd - at < ENTRY_HEADER) {
                return "metadata entry header truncated";
            }
            int keyLength = buf.getUnsignedByte(at);
            int valueLength = buf.getUnsignedShort(at + 1);
            if (keyLength == 0) {
                return "empty metadata key";
            }
            at += ENTRY_HEADER + keyLength + valueLength;
            if (at > blockEnd) {
                return "metadata entry overruns its block";
            }
        }
        return null;
    }

    public int version() {
        return buf.getUnsignedByte(base + 1);
    }

    public int kind() {
        return buf.getUnsignedByte(base + 2);
    }

    public int flags() {
        return buf.getUnsignedByte(base + 3);
    }

    public boolean isGzip() {
        return (flags() & FLAG_GZIP) != 0;
    }

    public boolean hasMessage() {
        return (flags() & FLAG_HAS_MESSAGE) != 0;
    }

    /** The gRPC status code of a response (0 in a request). */
    public int statusCode() {
        return buf.getUnsignedByte(base + 4);
    }

    public int textLength() {
        return buf.getUnsignedShort(base + 6);
    }

    private long headersLengthLong() {
        return buf.getUnsignedInt(base + 8);
    }

    private long trailersLengthLong() {
        return buf.getUnsignedInt(base + 12);
    }

    /** Valid after a successful {@link #wrap}, which bounds it by the frame's length. */
    public int headersLength() {
        return (int) headersLengthLong();
    }

    public int trailersLength() {
        return (int) trailersLengthLong();
    }

    /** The method's full name (request) or the status description (response). */
    public String text() {
        return buf.toString(base + HEADER_LENGTH, textLength(), StandardCharsets.UTF_8);
    }

    private int headersOffset() {
        return base + HEADER_LENGTH + textLength();
    }

    private int trailersOffset() {
        return headersOffset() + headersLength();
    }

    public int messageOffset() {
        return trailersOffset() + trailersLength();
    }

    public int messageLength() {
        return end - messageOffset();
    }

    /** The message bytes as a slice of the wrapped buffer (no copy, no retain). */
    public ByteBuf message() {
        return buf.slice(messageOffset(), messageLength());
    }

    /**
     * Bytes the headers count toward a limit, as gRPC counts them: key, value and 32 per entry.
     */
    public long headersSize() {
        return metadataSize(headersOffset(), headersLength());
    }

    public long trailersSize() {
        return metadataSize(trailersOffset(), trailersLength());
    }

    private long metadataSize(int offset, int length) {
        long size = 0;
        int at = offset;
        int blockEnd = offset + length;
        while (at < blockEnd) {
            int keyLength = buf.getUnsignedByte(at);
            int valueLength = buf.getUnsignedShort(at + 1);
            size += keyLength + valueLength + ENTRY_OVERHEAD;
            at += ENTRY_HEADER + keyLength + valueLength;
        }
        return size;
    }

    /**
     * The request headers or the response's initial headers as gRPC metadata.
     *
     * @throws MalformedFrameException for an invalid key
     */
    public Metadata headers() throws MalformedFrameException {
        return metadata(headersOffset(), headersLength());
    }

    /** The response's trailers; see {@link #headers()}. */
    public Metadata trailers() throws MalformedFrameException {
        return metadata(trailersOffset(), trailersLength());
    }

    private Metadata metadata(int offset, int length) throws MalformedFrameException {
        Metadata metadata = new Metadata();
        int at = offset;
        int blockEnd = offset + length;
        while (at < blockEnd) {
            int keyLength = buf.getUnsignedByte(at);
            int valueLength = buf.getUnsignedShort(at + 1);
            String key = buf.toString(at + ENTRY_HEADER, keyLength, StandardCharsets.US_ASCII);
            int valueAt = at + ENTRY_HEADER + keyLength;
            try {
                if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                    byte[] value = new byte[valueLength];
                    buf.getBytes(valueAt, value);
                    metadata.put(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER), value);
                } else {
                    metadata.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER),
                            buf.toString(valueAt, valueLength, StandardCharsets.US_ASCII));
                }
            } catch (IllegalArgumentException invalidKey) {
                throw new MalformedFrameException("invalid metadata key: " + invalidKey.getMessage());
            }
            at = valueAt + valueLength;
        }
        return metadata;
    }

    /**
     * Encodes a request around {@code message}, which it takes over (also when it throws): the frame is a
     * composite of a new header buffer and {@code message}, so the message is not copied.
     *
     * @param methodName the method's full name, UTF-8
     * @throws IllegalArgumentException when the name or a header does not fit its length field
     */
    public static ByteBuf encodeRequest(ByteBufAllocator alloc, byte[] methodName, Metadata headers, boolean gzip,
                                        ByteBuf message) {
        try {
            if (methodName.length > MAX_TEXT_BYTES) {
                throw new IllegalArgumentException("method name of " + methodName.length + " bytes");
            }
            MetadataBlock headerBlock = MetadataBlock.of(headers);
            ByteBuf head = alloc.buffer(HEADER_LENGTH + methodName.length + headerBlock.encodedLength);
            writeHeader(head, KIND_REQUEST, FLAG_HAS_MESSAGE | (gzip ? FLAG_GZIP : 0), 0, methodName.length,
                    headerBlock.encodedLength, 0);
            head.writeBytes(methodName);
            headerBlock.writeTo(head);
            return join(alloc, head, message);
        } catch (RuntimeException e) {
            message.release();
            throw e;
        }
    }

    /**
     * Encodes a response. {@code message} (null for none, and only with an OK status) is taken over.
     *
     * @throws IllegalArgumentException when a header or trailer does not fit its length field
     */
    public static ByteBuf encodeResponse(ByteBufAllocator alloc, Status status, Metadata headers, Metadata trailers,
                                         boolean gzip, ByteBuf message) {
        try {
            byte[] description = description(status);
            MetadataBlock headerBlock = MetadataBlock.of(headers);
            MetadataBlock trailerBlock = MetadataBlock.of(trailers);
            int flags = (message != null ? FLAG_HAS_MESSAGE : 0) | (message != null && gzip ? FLAG_GZIP : 0);
            ByteBuf head = alloc.buffer(HEADER_LENGTH + description.length + headerBlock.encodedLength
                    + trailerBlock.encodedLength);
            writeHeader(head, KIND_RESPONSE, flags, status.getCode().value(), description.length,
                    headerBlock.encodedLength, trailerBlock.encodedLength);
            head.writeBytes(description);
            headerBlock.writeTo(head);
            trailerBlock.writeTo(head);
            return message == null ? head : join(alloc, head, message);
        } catch (RuntimeException e) {
            if (message != null) {
                message.release();
            }
            throw e;
        }
    }

    /** A response carrying {@code status} alone: no headers, trailers or message. */
    public static ByteBuf encodeStatus(ByteBufAllocator alloc, Status status) {
        return encodeResponse(alloc, status, null, null, false, null);
    }

    private static void writeHeader(ByteBuf head, int kind, int flags, int code, int textLength, int headersLength,
                                    int trailersLength) {
        head.writeByte(MAGIC).writeByte(VERSION).writeByte(kind).writeByte(flags)
                .writeByte(code).writeByte(0).writeShort(textLength)
                .writeInt(headersLength).writeInt(trailersLength);
    }

    /** Small messages are copied behind the header (one buffer to send); large ones joined without a copy. */
    private static ByteBuf join(ByteBufAllocator alloc, ByteBuf head, ByteBuf message) {
        if (message.readableBytes() <= head.maxFastWritableBytes()) {
            head.writeBytes(message);
            message.release();
            return head;
        }
        CompositeByteBuf frame = alloc.compositeBuffer(2);
        frame.addComponent(true, head);
        frame.addComponent(true, message);
        return frame;
    }

    /** The status description as UTF-8, cut at a character boundary to fit the u16 length field. */
    private static byte[] description(Status status) {
        String text = status.getDescription();
        if (text == null) {
            return new byte[0];
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_TEXT_BYTES) {
            return bytes;
        }
        int cut = MAX_TEXT_BYTES;
        while ((bytes[cut] & 0xC0) == 0x80) { // a continuation byte: step back to the start of its character
            cut--;
        }
        byte[] shortened = new byte[cut];
        System.arraycopy(bytes, 0, shortened, 0, cut);
        return shortened;
    }

    /** A metadata set flattened into keys and values, to size the frame before writing it. */
    private static final class MetadataBlock {
        private static final MetadataBlock EMPTY = new MetadataBlock(new byte[0][], 0);
        private final byte[][] keysAndValues;
        final int encodedLength;

        private MetadataBlock(byte[][] keysAndValues, int encodedLength) {
            this.keysAndValues = keysAndValues;
            this.encodedLength = encodedLength;
        }

        static MetadataBlock of(Metadata metadata) {
            if (metadata == null || metadata.keys().isEmpty()) {
                return EMPTY;
            }
            java.util.ArrayList<byte[]> flat = new java.util.ArrayList<>();
            int length = 0;
            for (String key : metadata.keys()) {
                byte[] keyBytes = key.getBytes(StandardCharsets.US_ASCII);
                if (keyBytes.length > MAX_KEY_BYTES) {
                    throw new IllegalArgumentException("metadata key of " + keyBytes.length + " bytes: " + key);
                }
                Iterable<?> values = key.endsWith(Metadata.BINARY_HEADER_SUFFIX)
                        ? metadata.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))
                        : metadata.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
                if (values == null) {
                    continue;
                }
                for (Object value : values) {
                    byte[] valueBytes = value instanceof byte[] ? (byte[]) value
                            : ((String) value).getBytes(StandardCharsets.US_ASCII);
                    if (valueBytes.length > MAX_VALUE_BYTES) {
                        throw new IllegalArgumentException("metadata value of " + valueBytes.length
                                + " bytes for " + key);
                    }
                    flat.add(keyBytes);
                    flat.add(valueBytes);
                    length += ENTRY_HEADER + keyBytes.length + valueBytes.length;
                }
            }
            return new MetadataBlock(flat.toArray(new byte[0][]), length);
        }

        void writeTo(ByteBuf out) {
            for (int i = 0; i < keysAndValues.length; i += 2) {
                out.writeByte(keysAndValues[i].length).writeShort(keysAndValues[i + 1].length);
                out.writeBytes(keysAndValues[i]).writeBytes(keysAndValues[i + 1]);
            }
        }
    }

    /** A frame whose structure {@link #wrap} accepted but whose content gRPC refuses (an invalid key). */
    public static final class MalformedFrameException extends Exception {
        private static final long serialVersionUID = 1L;

        public MalformedFrameException(String message) {
            super(message);
        }
    }
}
