package io.homa4j.grpc.internal;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** Marshals messages into pooled buffers and back, with the gzip encoding and the size limits. */
public final class MessageCodec {
    public static final String GZIP = "gzip";
    public static final String IDENTITY = "identity";
    private static final int COPY_CHUNK = 8192;

    private MessageCodec() {
    }

    /**
     * Serializes {@code message} with {@code marshaller} into a new buffer the caller owns, gzip-compressed when
     * asked.
     *
     * @throws StatusRuntimeException RESOURCE_EXHAUSTED when the serialized message exceeds {@code maxBytes}
     */
    public static <T> ByteBuf serialize(ByteBufAllocator alloc, MethodDescriptor.Marshaller<T> marshaller,
                                        T message, boolean gzip, int maxBytes) {
        ByteBuf out = null;
        try (InputStream in = marshaller.stream(message)) {
            int known = in instanceof KnownLength ? in.available() : -1;
            if (known > maxBytes) {
                throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(
                        "message too large %d > %d", known, maxBytes)).asRuntimeException();
            }
            out = alloc.buffer(!gzip && known >= 0 ? known : 256);
            OutputStream target = new ByteBufOutputStream(out);
            if (gzip) {
                target = new GZIPOutputStream(target, COPY_CHUNK);
            }
            if (in instanceof Drainable) {
                ((Drainable) in).drainTo(target);
            } else {
                in.transferTo(target);
            }
            target.close();
            if (out.readableBytes() > maxBytes) {
                throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(
                        "message too large %d > %d", out.readableBytes(), maxBytes)).asRuntimeException();
            }
            ByteBuf result = out;
            out = null;
            return result;
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("failed to serialize the message").withCause(e).asRuntimeException();
        } finally {
            if (out != null) {
                out.release();
            }
        }
    }

    /**
     * Parses {@code bytes} (not released here) with {@code marshaller}, gunzipping first when {@code gzip}.
     *
     * @throws StatusRuntimeException RESOURCE_EXHAUSTED when the message, or what it decompresses to, exceeds
     *                                {@code maxBytes}; INTERNAL when it does not decompress or parse
     */
    public static <T> T parse(MethodDescriptor.Marshaller<T> marshaller, ByteBuf bytes, boolean gzip, int maxBytes) {
        int length = bytes.readableBytes();
        if (length > maxBytes) {
            throw tooLarge(length, maxBytes);
        }
        InputStream in = new ByteBufStream(bytes);
        if (gzip) {
            in = gunzipped(in, maxBytes);
        }
        try {
            return marshaller.parse(in);
        } catch (StatusRuntimeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Status.INTERNAL.withDescription("failed to parse the message").withCause(e).asRuntimeException();
        }
    }

    /** gRPC-java's wording, which clients and tests match on. */
    public static StatusRuntimeException tooLarge(long length, int maxBytes) {
        return Status.RESOURCE_EXHAUSTED.withDescription(String.format(
                "gRPC message exceeds maximum size %d: %d", maxBytes, length)).asRuntimeException();
    }

    /** Decompresses into memory, stopping one byte past the limit: a small bomb cannot fill the heap. */
    private static InputStream gunzipped(InputStream compressed, int maxBytes) {
        try (GZIPInputStream gunzip = new GZIPInputStream(compressed, COPY_CHUNK)) {
            java.io.ByteArrayOutputStream plain = new java.io.ByteArrayOutputStream();
            byte[] chunk = new byte[COPY_CHUNK];
            long total = 0;
            int n;
            while ((n = gunzip.read(chunk)) > 0) {
                total += n;
                if (total > maxBytes) {
                    throw Status.RESOURCE_EXHAUSTED.withDescription(String.format(
                            "Decompressed gRPC message exceeds maximum size %d", maxBytes)).asRuntimeException();
                }
                plain.write(chunk, 0, n);
            }
            return new java.io.ByteArrayInputStream(plain.toByteArray());
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("failed to decompress the gzip message").withCause(e)
                    .asRuntimeException();
        }
    }

    /**
     * A buffer's readable bytes as a stream of known length, so protobuf's marshaller sizes its parse from
     * {@link #available()} instead of reading in chunks.
     */
    private static final class ByteBufStream extends InputStream implements KnownLength {
        private final ByteBuf buf;

        ByteBufStream(ByteBuf buf) {
            this.buf = buf.duplicate();
        }

        @Override
        public int available() {
            return buf.readableBytes();
        }

        @Override
        public int read() {
            return buf.isReadable() ? buf.readUnsignedByte() : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = Math.min(len, buf.readableBytes());
            if (n == 0) {
                return len == 0 ? 0 : -1;
            }
            buf.readBytes(b, off, n);
            return n;
        }
    }
}
