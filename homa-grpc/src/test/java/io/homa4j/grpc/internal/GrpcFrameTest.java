package io.homa4j.grpc.internal;

import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GrpcFrameTest {
    private static final Metadata.Key<String> TEXT = Metadata.Key.of("x-text", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<byte[]> BIN = Metadata.Key.of("x-bin", Metadata.BINARY_BYTE_MARSHALLER);

    @Test
    void requestRoundTrips() throws Exception {
        Metadata headers = new Metadata();
        headers.put(TEXT, "one");
        headers.put(TEXT, "two");
        headers.put(BIN, new byte[]{0, (byte) 0xff, 10});
        byte[] message = new byte[5000];
        message[4999] = 42;
        ByteBuf encoded = GrpcFrame.encodeRequest(ByteBufAllocator.DEFAULT,
                "pkg.Service/Method".getBytes(StandardCharsets.UTF_8), headers, true, Unpooled.wrappedBuffer(message));
        try {
            GrpcFrame frame = new GrpcFrame();
            assertNull(frame.wrap(encoded));
            assertEquals(GrpcFrame.KIND_REQUEST, frame.kind());
            assertTrue(frame.isGzip() && frame.hasMessage());
            assertEquals("pkg.Service/Method", frame.text());
            Metadata decoded = frame.headers();
            assertEquals(java.util.List.of("one", "two"), iterable(decoded.getAll(TEXT)));
            assertArrayEquals(new byte[]{0, (byte) 0xff, 10}, decoded.get(BIN));
            assertEquals(5000, frame.messageLength());
            assertEquals(42, frame.message().getByte(4999));
            assertEquals((6 + 3 + 32) * 2 + (5 + 3 + 32), frame.headersSize(),
                    "key + value + 32 per entry, as gRPC counts");
        } finally {
            encoded.release();
        }
    }

    private static java.util.List<String> iterable(Iterable<String> values) {
        java.util.List<String> list = new java.util.ArrayList<>();
        values.forEach(list::add);
        return list;
    }

    @Test
    void responseRoundTripsWithStatusAndTrailers() throws Exception {
        Metadata trailers = new Metadata();
        trailers.put(TEXT, "t");
        ByteBuf encoded = GrpcFrame.encodeResponse(ByteBufAllocator.DEFAULT,
                Status.NOT_FOUND.withDescription("caf\u00e9 \uD83D\uDE08"), null, trailers, false, null);
        try {
            GrpcFrame frame = new GrpcFrame();
            assertNull(frame.wrap(encoded));
            assertEquals(GrpcFrame.KIND_RESPONSE, frame.kind());
            assertEquals(Status.Code.NOT_FOUND.value(), frame.statusCode());
            assertEquals("caf\u00e9 \uD83D\uDE08", frame.text());
            assertFalse(frame.hasMessage());
            assertEquals("t", frame.trailers().get(TEXT));
            assertEquals(0, frame.messageLength());
        } finally {
            encoded.release();
        }
    }

    @Test
    void longDescriptionsAreCutAtACharacterBoundary() {
        String text = "\u00e9".repeat(40_000); // 80,000 bytes of two-byte characters
        ByteBuf encoded = GrpcFrame.encodeStatus(ByteBufAllocator.DEFAULT, Status.INTERNAL.withDescription(text));
        try {
            GrpcFrame frame = new GrpcFrame();
            assertNull(frame.wrap(encoded));
            assertEquals(GrpcFrame.MAX_TEXT_BYTES - 1, frame.textLength());
            assertEquals(text.substring(0, (GrpcFrame.MAX_TEXT_BYTES - 1) / 2), frame.text());
        } finally {
            encoded.release();
        }
    }

    @Test
    void malformedFramesAreRefused() {
        ByteBuf good = GrpcFrame.encodeRequest(ByteBufAllocator.DEFAULT, "a/b".getBytes(StandardCharsets.UTF_8),
                new Metadata(), false, Unpooled.wrappedBuffer(new byte[]{1, 2}));
        byte[] bytes = new byte[good.readableBytes()];
        good.readBytes(bytes);
        good.release();
        assertNull(new GrpcFrame().wrap(Unpooled.wrappedBuffer(bytes)));
        for (int cut = 0; cut < GrpcFrame.HEADER_LENGTH + 3; cut++) {
            assertNotNull(new GrpcFrame().wrap(Unpooled.wrappedBuffer(bytes, 0, cut)), "truncated at " + cut);
        }
        assertRefused(bytes, 0, 0x68, "magic");
        assertRefused(bytes, 1, 2, "version");
        assertRefused(bytes, 2, 3, "kind");
        assertRefused(bytes, 3, 6, "flags");
        assertRefused(bytes, 3, 0, "a request carries");
        assertRefused(bytes, 4, 1, "a request carries");
        assertRefused(bytes, 5, 1, "reserved");
        assertRefused(bytes, 7, 200, "overrun");
        assertRefused(bytes, 11, 1, "metadata entry");
    }

    private static void assertRefused(byte[] good, int index, int value, String why) {
        byte[] bad = good.clone();
        bad[index] = (byte) value;
        String verdict = new GrpcFrame().wrap(Unpooled.wrappedBuffer(bad));
        assertNotNull(verdict, why);
        assertTrue(verdict.contains(why), verdict);
    }

    @Test
    void oversizedMetadataValuesCannotBeEncoded() {
        Metadata headers = new Metadata();
        headers.put(TEXT, "x".repeat(70_000));
        ByteBuf message = Unpooled.buffer(1).writeByte(1);
        assertThrows(IllegalArgumentException.class, () -> GrpcFrame.encodeRequest(ByteBufAllocator.DEFAULT,
                "a/b".getBytes(StandardCharsets.UTF_8), headers, false, message));
        assertEquals(0, message.refCnt(), "the message was released");
    }
}
