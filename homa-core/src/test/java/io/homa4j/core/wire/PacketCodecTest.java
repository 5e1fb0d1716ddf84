package io.homa4j.core.wire;

import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every packet type encodes and decodes to the same fields; the decoder rejects what it must. */
class PacketCodecTest {
    private final PacketEncoder encoder = new PacketEncoder(ByteBufAllocator.DEFAULT);
    private final List<ByteBuf> toRelease = new ArrayList<>();

    @AfterEach
    void release() {
        toRelease.forEach(ByteBuf::release);
    }

    private ByteBuf keep(ByteBuf b) {
        toRelease.add(b);
        assertNull(PacketDecoder.check(b), "valid packet rejected");
        return b;
    }

    @Test
    void data() {
        ByteBuf message = keep0(Unpooled.copiedBuffer("hello, homa", StandardCharsets.US_ASCII));
        ByteBuf p = keep(encoder.data(42, 11, 7, 9, 3, DataHeader.FLAG_RETRANSMIT, 1234, message, 4));
        DataHeader d = new DataHeader().wrap(p, 0);
        assertEquals(PacketType.DATA, d.type());
        assertEquals(CommonHeader.MAGIC, d.magic());
        assertEquals(CommonHeader.VERSION, d.version());
        assertEquals(42, d.rpcId());
        assertEquals(11, d.messageLength());
        assertEquals(7, d.offset());
        assertEquals(9, d.incoming());
        assertEquals(4, d.segmentLength());
        assertEquals(3, d.cutoffsVersion());
        assertTrue(d.retransmit());
        assertFalse(d.error());
        assertEquals(1234, d.ackId());
        assertEquals(DataHeader.LENGTH + 4, p.readableBytes());
        assertEquals("homa", p.toString(d.payloadIndex(), 4, StandardCharsets.US_ASCII));
        assertEquals(-1, d.sentLevel(), "not said");
        DataHeader atLevel = new DataHeader().wrap(keep(encoder.data(42, 11, 7, 9, 3, 0, 0, message, 4, 5)), 0);
        assertEquals(5, atLevel.sentLevel());
        assertFalse(atLevel.retransmit(), "the level does not spill into the flags");
    }

    private ByteBuf keep0(ByteBuf b) {
        toRelease.add(b);
        return b;
    }

    @Test
    void emptyData() {
        ByteBuf p = keep(encoder.data(2, 0, 0, 0, 1, DataHeader.FLAG_ERROR, 0, Unpooled.EMPTY_BUFFER, 0));
        DataHeader d = new DataHeader().wrap(p, 0);
        assertEquals(0, d.messageLength());
        assertTrue(d.error());
    }

    @Test
    void grant() {
        GrantHeader g = new GrantHeader().wrap(keep(encoder.grant(-7L << 1, 1_000_000, 3)), 0);
        assertEquals(PacketType.GRANT, g.type());
        assertEquals(-7L << 1, g.rpcId());
        assertEquals(1_000_000, g.offset());
        assertEquals(3, g.priority());
    }

    @Test
    void resend() {
        ResendHeader r = new ResendHeader().wrap(keep(encoder.resend(5, 1432, 2864, 7)), 0);
        assertEquals(PacketType.RESEND, r.type());
        assertEquals(5, r.rpcId());
        assertEquals(1432, r.offset());
        assertEquals(2864, r.length());
        assertEquals(7, r.priority());
    }

    @Test
    void rpcUnknown() {
        RpcUnknownHeader u = new RpcUnknownHeader().wrap(keep(encoder.rpcUnknown(9, 123_456_789_000L)), 0);
        assertEquals(PacketType.RPC_UNKNOWN, u.type());
        assertEquals(9, u.rpcId());
        assertEquals(123_456_789_000L, u.ageNanos());
    }

    @Test
    void busyAndNeedAck() {
        CommonHeader b = new CommonHeader().wrap(keep(encoder.busy(11)), 0);
        assertEquals(PacketType.BUSY, b.type());
        assertEquals(11, b.rpcId());
        CommonHeader n = new CommonHeader().wrap(keep(encoder.needAck(13)), 0);
        assertEquals(PacketType.NEED_ACK, n.type());
        assertEquals(13, n.rpcId());
        assertEquals(CommonHeader.LENGTH, n.buffer().readableBytes());
    }

    @Test
    void cutoffs() {
        int[] levels = {0, 0, 0, 0, Integer.MAX_VALUE, 15_000, 2_800, 200};
        CutoffsHeader c = new CutoffsHeader().wrap(keep(encoder.cutoffs(levels, 65_535)), 0);
        assertEquals(PacketType.CUTOFFS, c.type());
        int[] back = new int[8];
        for (int i = 0; i < 8; i++) {
            back[i] = c.cutoff(i);
        }
        assertArrayEquals(levels, back);
        assertEquals(65_535, c.cutoffsVersion());
    }

    @Test
    void ack() {
        long[] ids = {2, 4, 1L << 40};
        AckHeader a = new AckHeader().wrap(keep(encoder.ack(8, ids, 3)), 0);
        assertEquals(PacketType.ACK, a.type());
        assertEquals(8, a.rpcId());
        assertEquals(3, a.count());
        assertEquals(2, a.ackedId(0));
        assertEquals(4, a.ackedId(1));
        assertEquals(1L << 40, a.ackedId(2));
        assertEquals(AckHeader.lengthFor(3), a.buffer().readableBytes());
    }

    @Test
    void decoderHonoursReaderIndex() {
        ByteBuf packet = encoder.grant(2, 100, 1);
        ByteBuf framed = keep0(Unpooled.buffer());
        framed.writeBytes(new byte[] {9, 9, 9});
        framed.writeBytes(packet);
        packet.release();
        framed.readerIndex(3);
        assertNull(PacketDecoder.check(framed));
        assertEquals(100, new GrantHeader().wrap(framed, 3).offset());
    }

    @Test
    void rejectsTruncatedOfEveryType() {
        ByteBuf message = keep0(Unpooled.wrappedBuffer(new byte[100]));
        List<ByteBuf> valid = List.of(encoder.data(2, 100, 0, 100, 0, 0, 0, message, 100), encoder.grant(2, 1, 1),
                encoder.resend(2, 0, 1, 1), encoder.rpcUnknown(3, 1), encoder.busy(3),
                encoder.cutoffs(new int[] {0, 0, 0, 0, 0, 0, 0, 1}, 1), encoder.needAck(3),
                encoder.ack(2, new long[] {2, 4}, 2));
        for (ByteBuf p : valid) {
            toRelease.add(p);
            assertNull(PacketDecoder.check(p));
            for (int cut = 0; cut < p.readableBytes(); cut++) {
                DropReason r = PacketDecoder.check(p.slice(0, cut));
                assertTrue(r == DropReason.TRUNCATED || r == DropReason.MALFORMED,
                        () -> "cut packet accepted or misclassified: " + r);
            }
        }
    }

    @Test
    void rejectsBadHeaderFields() {
        ByteBuf p = keep0(encoder.grant(2, 1, 1));
        p.setShort(0, 0x1234);
        assertEquals(DropReason.BAD_MAGIC, PacketDecoder.check(p));
        p.setShort(0, CommonHeader.MAGIC);
        p.setByte(2, 2);
        assertEquals(DropReason.BAD_VERSION, PacketDecoder.check(p));
        p.setByte(2, CommonHeader.VERSION);
        p.setByte(3, 0x7F);
        assertEquals(DropReason.UNKNOWN_TYPE, PacketDecoder.check(p));
        p.setByte(3, PacketType.GRANT.code());
        p.setByte(GrantHeader.PRIORITY_OFFSET, 8);
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
        p.setByte(GrantHeader.PRIORITY_OFFSET, 1);
        p.setInt(GrantHeader.OFFSET_OFFSET, -1);
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
    }

    @Test
    void rejectsDataInconsistencies() {
        ByteBuf message = keep0(Unpooled.wrappedBuffer(new byte[10]));
        ByteBuf p = keep0(encoder.data(2, 10, 0, 10, 0, 0, 0, message, 10));
        p.setInt(DataHeader.OFFSET_OFFSET, 1); // 1 + 10 > 10
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
        p.setInt(DataHeader.OFFSET_OFFSET, 0);
        p.setInt(DataHeader.MESSAGE_LENGTH_OFFSET, -5);
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
        p.setInt(DataHeader.MESSAGE_LENGTH_OFFSET, 10);
        p.setByte(DataHeader.FLAGS_OFFSET, 0x80);
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
        p.setByte(DataHeader.FLAGS_OFFSET, 0);
        p.setShort(DataHeader.SEGMENT_LENGTH_OFFSET, 9); // packet longer than header + segment
        assertEquals(DropReason.MALFORMED, PacketDecoder.check(p));
        p.setShort(DataHeader.SEGMENT_LENGTH_OFFSET, 11);
        assertEquals(DropReason.TRUNCATED, PacketDecoder.check(p));
    }

    @Test
    void errorPayloadRoundTrip() {
        ByteBuf e = keep0(ErrorPayload.encode(ByteBufAllocator.DEFAULT, io.homa4j.core.ErrorCode.MESSAGE_TOO_LARGE,
                "zu groß"));
        assertEquals(io.homa4j.core.ErrorCode.MESSAGE_TOO_LARGE, ErrorPayload.code(e));
        assertEquals("zu groß", ErrorPayload.description(e));
        assertEquals(io.homa4j.core.ErrorCode.PROTOCOL_ERROR, ErrorPayload.code(Unpooled.EMPTY_BUFFER));
    }
}
