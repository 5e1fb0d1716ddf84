package io.homa4j.grpc.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.grpc.Metadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzz target (Jazzer) for {@link GrpcFrame}, the decoder every homa-grpc request and response
 * goes through. For any bytes: {@code wrap} does not throw; its verdict does not depend on where the frame starts
 * in its buffer; and when it accepts a frame, every region lies within it and the metadata decodes or is refused
 * with {@link GrpcFrame.MalformedFrameException}, never another exception. The default surefire run replays the
 * inputs checked in beside this class; {@code surefire:test@fuzz-frame} fuzzes.
 */
class GrpcFrameFuzzTest {

    @FuzzTest(maxDuration = "5s")
    void frame(byte[] bytes) {
        GrpcFrame frame = new GrpcFrame();
        String verdict = frame.wrap(Unpooled.wrappedBuffer(bytes));

        byte[] shifted = new byte[bytes.length + 5];
        System.arraycopy(bytes, 0, shifted, 5, bytes.length);
        ByteBuf elsewhere = Unpooled.wrappedBuffer(shifted).readerIndex(5);
        assertEquals(verdict == null, new GrpcFrame().wrap(elsewhere) == null,
                "the verdict does not depend on where the frame starts");

        if (verdict == null) {
            readEveryField(frame, bytes.length);
        }
    }

    private static void readEveryField(GrpcFrame frame, int length) {
        assertTrue(frame.kind() == GrpcFrame.KIND_REQUEST || frame.kind() == GrpcFrame.KIND_RESPONSE);
        assertTrue(frame.messageOffset() >= GrpcFrame.HEADER_LENGTH && frame.messageLength() >= 0);
        assertEquals(length, frame.messageOffset() + frame.messageLength());
        assertEquals(frame.messageLength(), frame.message().readableBytes());
        frame.text();
        assertTrue(frame.headersSize() >= 0 && frame.trailersSize() >= 0);
        try {
            Metadata headers = frame.headers();
            Metadata trailers = frame.trailers();
            assertTrue(headers.keys().size() <= frame.headersLength() && trailers.keys().size() <= length);
        } catch (GrpcFrame.MalformedFrameException refused) {
            assertTrue(refused.getMessage().startsWith("invalid metadata key"));
        }
    }
}
