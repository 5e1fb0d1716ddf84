package io.homa4j;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.IllegalReferenceCountException;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The RPC envelope: the few bytes in front of every request and response message that carry what the API adds
 * to Homa's messages: the request's remaining deadline and metadata, the response's outcome (an application
 * status, or a refusal by an overloaded or stopping server) and metadata. Version 1; the layout is in
 * docs/protocol.md, "RPC envelope". The engine carries envelopes as message bytes and never looks inside.
 *
 * <p>Encoding puts a small header buffer in front of the payload: a short payload is copied behind the header
 * ({@link #COPY_UP_TO_BYTES}), a longer one is not copied (a composite buffer owns both). The endpoint encodes
 * with {@link io.homa4j.core.wire.SmallMessageAllocator}, whose heap buffers cost least for such short-lived ones.
 * Decoding reads the header and leaves the message's reader index at the payload.
 *
 * <p>Stateless; thread-safe.
 */
final class Envelope {
    static final int VERSION = 1;
    static final int FLAG_DEADLINE = 0x01;
    static final int FLAG_METADATA = 0x02;
    /** Longest description of a failure, in bytes of UTF-8. */
    static final int MAX_DESCRIPTION_BYTES = 4_096;
    /** Largest remaining deadline the wire carries (about 71 minutes); longer ones are sent as this. */
    static final long MAX_DEADLINE_MICROS = 0xFFFF_FFFFL;
    /** The most bytes an envelope adds to a message: a response's header with a status and full metadata. */
    static final int MAX_OVERHEAD_BYTES = 3 + 4 + Metadata.MAX_ENCODED_BYTES;
    /** A request without a deadline. */
    static final long NO_DEADLINE = -1;
    /**
     * The longest payload copied behind its header into one buffer. Below this a copy costs less than what a
     * composite of two buffers costs to build, slice into packets and free; it also touches fewer objects, which
     * is most of what a call costs on an endpoint whose caches went cold while it was idle.
     */
    static final int COPY_UP_TO_BYTES = 1_024;

    /** How a server answered, the response envelope's third byte. */
    enum Outcome {
        /** The payload is the handler's response. */
        OK,
        /** The handler failed the call with an application status; the payload is its description. */
        APPLICATION_ERROR,
        /** The server refused the request without running the handler: too many requests pending. */
        OVERLOADED,
        /** The server refused the request without running the handler: it is shutting down. */
        SHUTTING_DOWN,
        /**
         * The server refused the request without running the handler: no handler is installed yet (a request
         * that arrived between the endpoint's bind and its {@code serve}, e.g. a retry reaching a restarted
         * server). Appended last: codes are ordinals on the wire.
         */
        NOT_SERVING,
        /**
         * The handler replied with a payload longer than the server's {@code maxMessageBytes}; the payload is the
         * description. Appended last: codes are ordinals on the wire.
         */
        RESPONSE_TOO_LARGE;

        private static final Outcome[] BY_CODE = values();
    }

    /** A request's header: its remaining deadline ({@link #NO_DEADLINE} for none) and metadata. */
    record RequestHeader(long remainingNanos, Metadata metadata) {
        static final RequestHeader NONE = new RequestHeader(NO_DEADLINE, Metadata.EMPTY);
    }

    /** A response's header: the outcome, the application status (0 unless APPLICATION_ERROR), metadata. */
    record ResponseHeader(Outcome outcome, int status, Metadata metadata) {
        static final ResponseHeader OK = new ResponseHeader(Outcome.OK, 0, Metadata.EMPTY);
    }

    /** An envelope that breaks the format; the message it came in is answered or failed as a protocol error. */
    static final class MalformedException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedException(String message) {
            super(message, null, false, false);
        }
    }

    private Envelope() {
    }

    /**
     * A header in front of a payload, without copying. It keeps a reference of its own to the payload (the guard,
     * taken by {@link #guard} before the header exists), given back when the message is freed: an application that
     * releases its buffer after handing it over (API misuse) then cannot free bytes the engine is still sending;
     * its extra release is absorbed here.
     */
    private static final class Enveloped extends CompositeByteBuf {
        private final ByteBuf payload;

        /** Takes ownership of {@code header}, of the handed-over reference to {@code payload} and of the guard. */
        Enveloped(ByteBufAllocator alloc, ByteBuf header, ByteBuf payload) {
            super(alloc, payload.isDirect(), 2, header, payload);
            this.payload = payload;
        }

        @Override
        protected void deallocate() {
            super.deallocate(); // releases the header, and the payload once
            if (payload.refCnt() > 0) {
                payload.release(); // our own reference, unless the application's extra release took it
            }
        }
    }

    /**
     * The request message: the header, then {@code payload}.
     *
     * <p>Ownership: takes over the caller's reference to {@code payload}, also when this throws, except when the
     * payload turns out released already ({@link IllegalReferenceCountException}; it may have been released by
     * another thread after the caller checked it): then nothing was allocated and nothing is left to release.
     * A short payload is copied and released before this returns; a longer one is released with the message.
     *
     * @param remainingNanos the time left until the call's deadline, or {@link #NO_DEADLINE}
     * @throws IllegalReferenceCountException when {@code payload} was released already
     */
    static ByteBuf request(ByteBufAllocator alloc, long remainingNanos, Metadata metadata, ByteBuf payload) {
        guard(payload);
        try {
            return envelope(alloc, requestHeader(alloc, remainingNanos, metadata, copied(payload)), payload);
        } catch (RuntimeException | Error e) {
            unguard(payload);
            throw e;
        }
    }

    /**
     * The response message of a handler's reply: the header, then {@code payload}. Ownership as for
     * {@link #request}: the payload is taken over unless it turns out released already.
     *
     * @throws IllegalReferenceCountException when {@code payload} was released already
     */
    static ByteBuf response(ByteBufAllocator alloc, Metadata metadata, ByteBuf payload) {
        guard(payload);
        try {
            return envelope(alloc, responseHeader(alloc, Outcome.OK, 0, metadata, copied(payload)), payload);
        } catch (RuntimeException | Error e) {
            unguard(payload);
            throw e;
        }
    }

    /**
     * The message of {@code header} and {@code payload}; takes ownership of both (the guard included). A short
     * payload is copied into the header's buffer, which was allocated with room for it, and let go at once.
     */
    private static ByteBuf envelope(ByteBufAllocator alloc, ByteBuf header, ByteBuf payload) {
        int length = payload.readableBytes();
        if (!copiedWhole(payload)) {
            return new Enveloped(alloc, header, payload);
        }
        try {
            header.writeBytes(payload, payload.readerIndex(), length);
        } catch (RuntimeException | Error e) {
            header.release();
            throw e;
        }
        payload.release(); // the handed-over reference
        if (payload.refCnt() > 0) {
            payload.release(); // the guard, unless an early release by the application (misuse) took it
        }
        return header;
    }

    /** Whether {@link #envelope} copies {@code payload} behind the header rather than holding it. */
    private static boolean copiedWhole(ByteBuf payload) {
        return payload.readableBytes() <= COPY_UP_TO_BYTES;
    }

    /** The bytes of {@code payload} that {@link #envelope} copies behind the header: all of a short one, or none. */
    private static int copied(ByteBuf payload) {
        return copiedWhole(payload) ? payload.readableBytes() : 0;
    }

    /**
     * Takes the envelope's own reference to {@code payload}, before anything is allocated. {@code retain} is the
     * check that cannot race: a payload released meanwhile (by another thread, or by an earlier call that was
     * handed the same buffer) makes it throw, and the caller then owns nothing.
     */
    private static void guard(ByteBuf payload) {
        payload.retain();
    }

    /** The header could not be made: gives back the guard and the handed-over reference (both ours now). */
    private static void unguard(ByteBuf payload) {
        for (int i = 0; i < 2 && payload.refCnt() > 0; i++) {
            payload.release();
        }
    }

    /** A response that is not a reply: a failure with an application status, or a refusal. */
    static ByteBuf failure(ByteBufAllocator alloc, Outcome outcome, int status, Metadata metadata,
                           String description) {
        byte[] text = description.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_DESCRIPTION_BYTES);
        ByteBuf b = responseHeader(alloc, outcome, status, metadata, n);
        b.writeBytes(text, 0, n);
        return b;
    }

    /** A request header in a buffer with room for {@code bodyBytes} more. */
    private static ByteBuf requestHeader(ByteBufAllocator alloc, long remainingNanos, Metadata metadata,
                                         int bodyBytes) {
        boolean deadline = remainingNanos != NO_DEADLINE;
        int flags = (deadline ? FLAG_DEADLINE : 0) | (metadata.isEmpty() ? 0 : FLAG_METADATA);
        ByteBuf header = alloc.buffer(2 + (deadline ? 4 : 0) + (metadata.isEmpty() ? 0 : metadata.encodedBytes())
                + bodyBytes);
        header.writeByte(VERSION).writeByte(flags);
        if (deadline) {
            header.writeInt((int) toWireMicros(remainingNanos));
        }
        if (!metadata.isEmpty()) {
            writeMetadata(header, metadata);
        }
        return header;
    }

    /** A response header in a buffer with room for {@code bodyBytes} more. */
    private static ByteBuf responseHeader(ByteBufAllocator alloc, Outcome outcome, int status, Metadata metadata,
                                          int bodyBytes) {
        boolean withStatus = outcome == Outcome.APPLICATION_ERROR;
        ByteBuf header = alloc.buffer(3 + (withStatus ? 4 : 0)
                + (metadata.isEmpty() ? 0 : metadata.encodedBytes()) + bodyBytes);
        header.writeByte(VERSION).writeByte(metadata.isEmpty() ? 0 : FLAG_METADATA).writeByte(outcome.ordinal());
        if (withStatus) {
            header.writeInt(status);
        }
        if (!metadata.isEmpty()) {
            writeMetadata(header, metadata);
        }
        return header;
    }

    /** Reads a request's header; the reader index is then at the payload. */
    static RequestHeader readRequest(ByteBuf message) throws MalformedException {
        int flags = readVersionAndFlags(message, FLAG_DEADLINE | FLAG_METADATA);
        long remaining = NO_DEADLINE;
        if ((flags & FLAG_DEADLINE) != 0) {
            need(message, 4, "deadline");
            remaining = TimeUnit.MICROSECONDS.toNanos(message.readUnsignedInt());
        }
        Metadata metadata = (flags & FLAG_METADATA) != 0 ? readMetadata(message) : Metadata.EMPTY;
        return remaining == NO_DEADLINE && metadata.isEmpty() ? RequestHeader.NONE
                : new RequestHeader(remaining, metadata);
    }

    /** Reads a response's header; the reader index is then at the payload (or the failure's description). */
    static ResponseHeader readResponse(ByteBuf message) throws MalformedException {
        int flags = readVersionAndFlags(message, FLAG_METADATA);
        need(message, 1, "outcome");
        int code = message.readUnsignedByte();
        if (code >= Outcome.BY_CODE.length) {
            throw new MalformedException("unknown outcome " + code);
        }
        Outcome outcome = Outcome.BY_CODE[code];
        int status = 0;
        if (outcome == Outcome.APPLICATION_ERROR) {
            need(message, 4, "status");
            status = message.readInt();
        }
        Metadata metadata = (flags & FLAG_METADATA) != 0 ? readMetadata(message) : Metadata.EMPTY;
        return outcome == Outcome.OK && metadata.isEmpty() ? ResponseHeader.OK
                : new ResponseHeader(outcome, status, metadata);
    }

    /** A failure's description: the rest of the message, as UTF-8. */
    static String description(ByteBuf message) {
        return message.toString(message.readerIndex(), Math.min(message.readableBytes(), MAX_DESCRIPTION_BYTES),
                StandardCharsets.UTF_8);
    }

    static long toWireMicros(long remainingNanos) {
        if (remainingNanos <= 0) {
            return 0;
        }
        long micros = (remainingNanos + 999) / 1_000; // rounded up: a deadline is never made earlier
        return Math.min(micros, MAX_DEADLINE_MICROS);
    }

    private static int readVersionAndFlags(ByteBuf message, int knownFlags) throws MalformedException {
        need(message, 2, "version and flags");
        int version = message.readUnsignedByte();
        if (version != VERSION) {
            throw new MalformedException("unsupported envelope version " + version + " (this side speaks "
                    + VERSION + ")");
        }
        int flags = message.readUnsignedByte();
        if ((flags & ~knownFlags) != 0) {
            throw new MalformedException("unknown envelope flags 0x" + Integer.toHexString(flags & ~knownFlags));
        }
        return flags;
    }

    private static void writeMetadata(ByteBuf out, Metadata metadata) {
        out.writeShort(metadata.size());
        metadata.asMap().forEach((key, value) -> {
            out.writeByte(key.length());
            out.writeCharSequence(key, StandardCharsets.US_ASCII);
            byte[] v = value.getBytes(StandardCharsets.UTF_8);
            out.writeShort(v.length);
            out.writeBytes(v);
        });
    }

    private static Metadata readMetadata(ByteBuf in) throws MalformedException {
        int start = in.readerIndex();
        need(in, 2, "metadata count");
        int count = in.readUnsignedShort();
        if (count == 0 || count > Metadata.MAX_ENTRIES) {
            throw new MalformedException("metadata count " + count + " outside 1-" + Metadata.MAX_ENTRIES);
        }
        Metadata.Builder b = Metadata.builder();
        for (int i = 0; i < count; i++) {
            need(in, 1, "metadata key length");
            int keyLength = in.readUnsignedByte();
            need(in, keyLength + 2, "metadata key");
            String key = in.readCharSequence(keyLength, StandardCharsets.US_ASCII).toString();
            int valueLength = in.readUnsignedShort();
            need(in, valueLength, "metadata value");
            if (in.readerIndex() + valueLength - start > Metadata.MAX_ENCODED_BYTES) {
                throw new MalformedException("metadata longer than " + Metadata.MAX_ENCODED_BYTES + " bytes");
            }
            String value = in.readCharSequence(valueLength, StandardCharsets.UTF_8).toString();
            try {
                b.put(key, value);
            } catch (IllegalArgumentException invalid) {
                throw new MalformedException(invalid.getMessage());
            }
        }
        return b.build();
    }

    private static void need(ByteBuf in, int bytes, String what) throws MalformedException {
        if (in.readableBytes() < bytes) {
            throw new MalformedException("message ends inside the envelope's " + what);
        }
    }
}
