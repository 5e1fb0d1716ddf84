package io.homa4j.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link PacketDecoder#framedLength}: every packet type declares its own length, so coalesced reads can be cut. */
class PacketFramingTest {
    private static final PacketEncoder ENCODER = new PacketEncoder(new UnpooledByteBufAllocator(false, true));

    @Test
    void everyEncodedPacketDeclaresItsOwnLength() {
        ByteBuf payload = Unpooled.buffer(3000).writeZero(3000);
        List<ByteBuf> packets = List.of(
                ENCODER.data(2, 3000, 0, 3000, 1, 0, 0, payload, 1400),
                ENCODER.data(2, 3000, 2800, 3000, 1, 0, 0, payload, 200),
                ENCODER.grant(3, 10_000, 2),
                ENCODER.resend(3, 0, 100, 7),
                ENCODER.rpcUnknown(3, 1_000),
                ENCODER.busy(3),
                ENCODER.needAck(3),
                ENCODER.cutoffs(new int[] {0, 0, 0, 0, 1_000_000, 15_000, 2_800, 200}, 1),
                ENCODER.ack(2, new long[] {4, 6, 8}, 3));
        try {
            for (ByteBuf p : packets) {
                assertEquals(p.readableBytes(), PacketDecoder.framedLength(p, p.readerIndex(), p.readableBytes()),
                        "type " + p.getUnsignedByte(CommonHeader.TYPE_OFFSET));
            }
        } finally {
            packets.forEach(ByteBuf::release);
            payload.release();
        }
    }

    @Test
    void bytesThatStartNoPacketDeclareNothing() {
        ByteBuf zeros = Unpooled.buffer(64).writeZero(64);
        assertEquals(-1, PacketDecoder.framedLength(zeros, 0, 64));
        ByteBuf unknownType = Unpooled.buffer(16).writeShort(CommonHeader.MAGIC).writeByte(1).writeByte(0x7f)
                .writeZero(12);
        assertEquals(-1, PacketDecoder.framedLength(unknownType, 0, 16));
        ByteBuf busy = ENCODER.busy(3);
        assertEquals(-1, PacketDecoder.framedLength(busy, 0, CommonHeader.LENGTH - 1), "too short to tell");
        busy.release();
    }
}
