package io.homa4j.core.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzz target (Jazzer) for {@link PacketDecoder}. For any bytes: {@code check} does not throw; it
 * gives the same verdict on the engine's view of the packet (the fixed-header prefix copied into a reused
 * buffer whose tail holds an earlier packet's bytes); and when it accepts a packet, every field of the type's
 * flyweight reads within bounds and within its documented range. Corpus and runs: see {@code EngineFuzzTest}.
 */
class PacketDecoderFuzzTest {
    private static final byte STALE = (byte) 0xA5;

    @FuzzTest(maxDuration = "5s")
    void decoder(byte[] bytes) {
        ByteBuf whole = Unpooled.wrappedBuffer(bytes);
        DropReason verdict = PacketDecoder.check(whole);

        byte[] enginesCopy = new byte[PacketDecoder.MAX_FIXED_HEADER];
        Arrays.fill(enginesCopy, STALE);
        System.arraycopy(bytes, 0, enginesCopy, 0, Math.min(bytes.length, enginesCopy.length));
        assertEquals(verdict, PacketDecoder.check(Unpooled.wrappedBuffer(enginesCopy), 0, bytes.length),
                "the fixed-header prefix decides");

        byte[] shifted = new byte[bytes.length + 7];
        System.arraycopy(bytes, 0, shifted, 7, bytes.length);
        assertEquals(verdict, PacketDecoder.check(Unpooled.wrappedBuffer(shifted).readerIndex(7)),
                "the verdict does not depend on where the packet starts");

        if (verdict == null) {
            readEveryField(whole);
        }
    }

    private static void readEveryField(ByteBuf p) {
        PacketType type = PacketType.fromCode(new CommonHeader().wrap(p, 0).typeCode());
        assertTrue(p.readableBytes() >= type.minLength());
        switch (type) {
            case DATA: {
                DataHeader d = new DataHeader().wrap(p, 0);
                assertTrue(d.messageLength() >= 0 && d.offset() >= 0 && d.incoming() >= 0);
                assertTrue((long) d.offset() + d.segmentLength() <= d.messageLength());
                assertEquals(p.readableBytes(), DataHeader.LENGTH + d.segmentLength());
                d.cutoffsVersion();
                d.ackId();
                d.retransmit();
                d.error();
                break;
            }
            case GRANT: {
                GrantHeader g = new GrantHeader().wrap(p, 0);
                assertTrue(g.offset() >= 0 && g.priority() < CutoffsHeader.LEVELS);
                break;
            }
            case RESEND: {
                ResendHeader r = new ResendHeader().wrap(p, 0);
                assertTrue(r.offset() >= 0 && r.length() >= 0 && r.priority() < CutoffsHeader.LEVELS);
                break;
            }
            case RPC_UNKNOWN:
                new RpcUnknownHeader().wrap(p, 0).ageNanos();
                break;
            case CUTOFFS: {
                CutoffsHeader c = new CutoffsHeader().wrap(p, 0);
                for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
                    assertTrue(c.cutoff(level) >= 0);
                }
                c.cutoffsVersion();
                break;
            }
            case ACK: {
                AckHeader a = new AckHeader().wrap(p, 0);
                for (int i = 0; i < a.count(); i++) {
                    a.ackedId(i);
                }
                break;
            }
            default: // BUSY, NEED_ACK: the common header only
                new CommonHeader().wrap(p, 0).rpcId();
        }
    }
}
