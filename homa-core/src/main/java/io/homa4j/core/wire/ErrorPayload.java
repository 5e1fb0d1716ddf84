package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.homa4j.core.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;

/**
 * The payload of an error response (DATA flag ERROR): one byte of error code, then a UTF-8 description.
 * Codes: 1 HANDLER_ERROR, 2 MESSAGE_TOO_LARGE, 3 RESOURCE_EXHAUSTED, 4 DEADLINE_EXCEEDED (the server's handler
 * timeout); anything else reads as PROTOCOL_ERROR.
 */
@Unstable("packet flyweights for tests and tools")
public final class ErrorPayload {
    /** Descriptions are cut to this many bytes so an error response stays small. */
    public static final int MAX_DESCRIPTION_BYTES = 4096;

    private ErrorPayload() {
    }

    public static ByteBuf encode(ByteBufAllocator alloc, ErrorCode code, String description) {
        byte[] text = (description == null ? "" : description).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_DESCRIPTION_BYTES);
        ByteBuf b = alloc.buffer(1 + n);
        b.writeByte(wireCode(code));
        b.writeBytes(text, 0, n);
        return b;
    }

    public static ErrorCode code(ByteBuf payload) {
        if (!payload.isReadable()) {
            return ErrorCode.PROTOCOL_ERROR;
        }
        switch (payload.getUnsignedByte(payload.readerIndex())) {
            case 1:
                return ErrorCode.HANDLER_ERROR;
            case 2:
                return ErrorCode.MESSAGE_TOO_LARGE;
            case 3:
                return ErrorCode.RESOURCE_EXHAUSTED;
            case 4:
                return ErrorCode.DEADLINE_EXCEEDED;
            default:
                return ErrorCode.PROTOCOL_ERROR;
        }
    }

    public static String description(ByteBuf payload) {
        if (payload.readableBytes() <= 1) {
            return "";
        }
        return payload.toString(payload.readerIndex() + 1, payload.readableBytes() - 1, StandardCharsets.UTF_8);
    }

    private static int wireCode(ErrorCode code) {
        switch (code) {
            case MESSAGE_TOO_LARGE:
                return 2;
            case RESOURCE_EXHAUSTED:
                return 3;
            case DEADLINE_EXCEEDED:
                return 4;
            default:
                return 1;
        }
    }
}
