package io.homa4j;

import io.homa4j.testing.FailingAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EnvelopeTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static ByteBuf payload(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void aPlainRequestCostsTwoBytesAndReadsBackAsNone() throws Exception {
        ByteBuf m = Envelope.request(ALLOC, Envelope.NO_DEADLINE, Metadata.EMPTY, payload("hello"));
        try {
            assertEquals(2 + 5, m.readableBytes());
            assertSame(Envelope.RequestHeader.NONE, Envelope.readRequest(m));
            assertEquals("hello", m.toString(StandardCharsets.UTF_8), "the reader index is at the payload");
        } finally {
            m.release();
        }
    }

    @Test
    void deadlineAndMetadataRoundTrip() throws Exception {
        Metadata md = Metadata.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "tenant", "ünïcode");
        ByteBuf m = Envelope.request(ALLOC, TimeUnit.MILLISECONDS.toNanos(250) + 1, md, payload("x"));
        try {
            Envelope.RequestHeader h = Envelope.readRequest(m);
            assertEquals(TimeUnit.MICROSECONDS.toNanos(250_001), h.remainingNanos(), "rounded up to a microsecond");
            assertEquals(md, h.metadata());
            assertEquals("x", m.toString(StandardCharsets.UTF_8));
        } finally {
            m.release();
        }
    }

    @Test
    void aPastDeadlineTravelsAsZeroAndAVeryLongOneSaturates() {
        assertEquals(0, Envelope.toWireMicros(-5));
        assertEquals(0, Envelope.toWireMicros(0));
        assertEquals(1, Envelope.toWireMicros(1));
        assertEquals(Envelope.MAX_DEADLINE_MICROS, Envelope.toWireMicros(TimeUnit.DAYS.toNanos(1)));
    }

    @Test
    void responsesOfEachOutcomeRoundTrip() throws Exception {
        ByteBuf ok = Envelope.response(ALLOC, Metadata.EMPTY, payload("r"));
        try {
            assertEquals(3 + 1, ok.readableBytes());
            assertSame(Envelope.ResponseHeader.OK, Envelope.readResponse(ok));
        } finally {
            ok.release();
        }
        ByteBuf failed = Envelope.failure(ALLOC, Envelope.Outcome.APPLICATION_ERROR, -404, Metadata.of("k", "v"),
                "not found");
        try {
            Envelope.ResponseHeader h = Envelope.readResponse(failed);
            assertEquals(Envelope.Outcome.APPLICATION_ERROR, h.outcome());
            assertEquals(-404, h.status());
            assertEquals("v", h.metadata().get("k"));
            assertEquals("not found", Envelope.description(failed));
        } finally {
            failed.release();
        }
        ByteBuf refused = Envelope.failure(ALLOC, Envelope.Outcome.OVERLOADED, 0, Metadata.EMPTY, "busy");
        try {
            assertEquals(Envelope.Outcome.OVERLOADED, Envelope.readResponse(refused).outcome());
        } finally {
            refused.release();
        }
    }

    @Test
    void aLongDescriptionIsCut() throws Exception {
        ByteBuf m = Envelope.failure(ALLOC, Envelope.Outcome.APPLICATION_ERROR, 1, Metadata.EMPTY, "x".repeat(10_000));
        try {
            Envelope.readResponse(m);
            assertEquals(Envelope.MAX_DESCRIPTION_BYTES, Envelope.description(m).length());
        } finally {
            m.release();
        }
    }

    private static Envelope.MalformedException malformedRequest(int... bytes) {
        ByteBuf m = Unpooled.buffer();
        for (int b : bytes) {
            m.writeByte(b);
        }
        try {
            return assertThrows(Envelope.MalformedException.class, () -> Envelope.readRequest(m));
        } finally {
            m.release();
        }
    }

    @Test
    void malformedEnvelopesAreRefusedWithTheReason() {
        assertTrue(malformedRequest().getMessage().contains("version and flags"));
        assertTrue(malformedRequest(2, 0).getMessage().contains("unsupported envelope version 2"));
        assertTrue(malformedRequest(1, 0x80).getMessage().contains("unknown envelope flags"));
        assertTrue(malformedRequest(1, Envelope.FLAG_DEADLINE, 0, 0).getMessage().contains("deadline"));
        assertTrue(malformedRequest(1, Envelope.FLAG_METADATA, 0, 0).getMessage().contains("metadata count 0"));
        assertTrue(malformedRequest(1, Envelope.FLAG_METADATA, 0, 1, 3, 'a', 'b').getMessage()
                .contains("metadata key"));
        assertTrue(malformedRequest(1, Envelope.FLAG_METADATA, 0, 1, 1, 'A', 0, 0).getMessage()
                .contains("metadata keys are"), "an invalid key");
        assertTrue(malformedRequest(1, Envelope.FLAG_METADATA, 0, 2, 1, 'a', 0, 0, 1, 'a', 0, 0).getMessage()
                .contains("twice"));
        ByteBuf unknownOutcome = Unpooled.buffer().writeByte(1).writeByte(0).writeByte(9);
        try {
            assertThrows(Envelope.MalformedException.class, () -> Envelope.readResponse(unknownOutcome));
        } finally {
            unknownOutcome.release();
        }
    }

    @Test
    void metadataLimitsAreCheckedWhereItIsBuilt() {
        assertThrows(IllegalArgumentException.class, () -> Metadata.of("Upper", "v"));
        assertThrows(IllegalArgumentException.class, () -> Metadata.of("", "v"));
        assertThrows(IllegalArgumentException.class, () -> Metadata.of("k", "x".repeat(Metadata.MAX_ENCODED_BYTES)));
        Metadata.Builder b = Metadata.builder();
        for (int i = 0; i < Metadata.MAX_ENTRIES; i++) {
            b.put("k" + i, "");
        }
        assertThrows(IllegalArgumentException.class, () -> b.put("one-more", ""));
    }
    @Test
    void aPayloadReleasedBeforeItIsEnvelopedIsRefusedWithNothingAllocated() {
        // Found by EndpointFuzzTest (a buffer handed to two calls, the first of which ended while the second
        // started): the header was allocated before the payload turned out released, and leaked.
        UnpooledByteBufAllocator counted = new UnpooledByteBufAllocator(false);
        ByteBuf released = payload("gone");
        released.release();
        assertThrows(IllegalReferenceCountException.class, () -> Envelope.request(counted,
                TimeUnit.MILLISECONDS.toNanos(200), Metadata.of("k", "v"), released));
        assertThrows(IllegalReferenceCountException.class, () -> Envelope.response(counted, Metadata.EMPTY,
                released));
        assertEquals(0, counted.metric().usedHeapMemory() + counted.metric().usedDirectMemory(),
                "no header left behind");
    }

    @Test
    void aHeaderThatCannotBeAllocatedReleasesThePayloadItWasHanded() {
        ByteBufAllocator noMemory = new FailingAllocator().failAbove(-1);
        ByteBuf request = payload("request");
        assertThrows(OutOfMemoryError.class, () -> Envelope.request(noMemory, Envelope.NO_DEADLINE, Metadata.EMPTY,
                request));
        assertEquals(0, request.refCnt(), "taken over also when it throws");
        ByteBuf response = payload("response");
        assertThrows(OutOfMemoryError.class, () -> Envelope.response(noMemory, Metadata.EMPTY, response));
        assertEquals(0, response.refCnt(), "taken over also when it throws");
    }

    @Test
    void aShortPayloadIsCopiedAndLetGoAtOnceALongOneIsHeldUntilTheMessageIsFreed() throws Exception {
        ByteBuf shortPayload = Unpooled.buffer(Envelope.COPY_UP_TO_BYTES).writeZero(Envelope.COPY_UP_TO_BYTES);
        ByteBuf kept = shortPayload.retain(); // the application keeps a reference of its own
        ByteBuf m = Envelope.response(ALLOC, Metadata.EMPTY, shortPayload);
        assertEquals(1, kept.refCnt(), "the handed-over reference is released by the time response() returns");
        kept.setByte(0, 7);
        assertEquals(Envelope.ResponseHeader.OK, Envelope.readResponse(m));
        assertEquals(0, m.getByte(m.readerIndex()), "a copy: later writes to the payload do not reach the message");
        m.release();
        kept.release();
        assertThrows(IllegalReferenceCountException.class, kept::release,
                "a release after handing over is the application's own error, reported where it makes it");

        ByteBuf longPayload = Unpooled.buffer(Envelope.COPY_UP_TO_BYTES + 1).writeZero(Envelope.COPY_UP_TO_BYTES + 1);
        ByteBuf request = Envelope.request(ALLOC, Envelope.NO_DEADLINE, Metadata.EMPTY, longPayload);
        assertEquals(2, longPayload.refCnt(), "held by the message (and its guard) until it is freed");
        longPayload.release(); // misuse: absorbed by the guard
        assertEquals(Envelope.COPY_UP_TO_BYTES + 1 + 2, request.readableBytes(), "still readable");
        request.release();
        assertEquals(0, longPayload.refCnt());
    }
}
