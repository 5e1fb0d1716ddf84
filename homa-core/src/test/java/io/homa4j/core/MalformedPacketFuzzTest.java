package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.AckHeader;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property: no byte sequence makes the decoder or {@code HomaEngine.onPacket} throw, and every packet the engine
 * receives is accounted for as either handled or dropped under a reason. Inputs: purely random bytes, and valid
 * packets of every type (aimed at live client and server RPCs) with random mutations. Fixed seeds. The
 * coverage-guided counterpart, driving the same generators from fuzzer input, is {@link EngineFuzzTest}.
 */
class MalformedPacketFuzzTest {

    private static void run(FuzzedEngine t, int randomInputs, int mutatedInputs) {
        // untracked heap buffers for the inputs: they are fuzz material, not engine output
        PacketEncoder encoder = new PacketEncoder(new UnpooledByteBufAllocator(false, true));
        t.refillState();
        long handledBefore = t.engine.packetsHandled();
        for (int i = 0; i < randomInputs; i++) {
            t.feed(t.randomBytes(), t.source());
        }
        assertEquals(handledBefore, t.engine.packetsHandled(), "random bytes are never handled, only dropped");

        for (int i = 0; i < mutatedInputs; i++) {
            t.feed(t.mutate(t.validPacket(encoder)), t.source());
            if (i % 64 == 0) {
                t.advance();
            }
        }
        t.assertHealthy();
        MetricsSnapshot m = t.engine.metrics();
        assertEquals(randomInputs + mutatedInputs, m.totalDrops() + t.engine.packetsHandled());
        assertTrue(t.engine.packetsHandled() > mutatedInputs / 20, "mutations also reach deep paths: " + m);
        t.closeAndAssertEmpty();
    }

    @Test
    void hundredThousandRandomAndMutatedPackets() {
        // Engine output from an allocator the leak detector does not track, for speed; the next test covers
        // buffer balance under the paranoid detector.
        FuzzedEngine t = new FuzzedEngine(new UnpooledByteBufAllocator(false, true), new Random(20_261_202L));
        run(t, 50_000, 70_000);
    }

    @Test
    void mutatedPacketsLeakNothingUnderTheLeakDetector() {
        FuzzedEngine t = new FuzzedEngine(ByteBufAllocator.DEFAULT, new Random(7L));
        run(t, 500, 4_000);
    }

    /**
     * Every prefix of random headers of each type: a packet shorter than the length its header declares is
     * TRUNCATED, a longer one MALFORMED, and only the declared length itself may pass (or be MALFORMED for a
     * field out of range).
     */
    @Test
    void decoderJudgesEveryPrefixOfRandomHeadersByTheirDeclaredLength() {
        Random r = new Random(99);
        int accepted = 0;
        int malformedAtDeclaredLength = 0;
        for (int i = 0; i < 2_000; i++) {
            byte[] bytes = new byte[64];
            r.nextBytes(bytes);
            bytes[0] = 0x48;
            bytes[1] = 0x4D;
            bytes[2] = CommonHeader.VERSION;
            PacketType type = PacketType.values()[r.nextInt(PacketType.values().length)];
            bytes[3] = (byte) type.code();
            int declared = declaredLength(type, Unpooled.wrappedBuffer(bytes));
            for (int len = 0; len <= bytes.length; len++) {
                DropReason verdict = PacketDecoder.check(Unpooled.wrappedBuffer(bytes, 0, len));
                String what = type + " of " + len + " bytes, declared " + declared;
                if (len < declared) {
                    assertEquals(DropReason.TRUNCATED, verdict, what);
                } else if (len > declared) {
                    assertEquals(DropReason.MALFORMED, verdict, what);
                } else if (verdict == null) {
                    accepted++;
                } else {
                    assertEquals(DropReason.MALFORMED, verdict, what);
                    malformedAtDeclaredLength++;
                }
            }
        }
        assertTrue(accepted > 100, "random headers of the field-free types pass at their length: " + accepted);
        assertTrue(malformedAtDeclaredLength > 100, "random fields are often out of range: "
                + malformedAtDeclaredLength);
    }

    /** The packet length {@code header} declares: its type's fixed length, plus a DATA segment or ACK ids. */
    private static int declaredLength(PacketType type, ByteBuf header) {
        switch (type) {
            case DATA:
                return DataHeader.LENGTH + new DataHeader().wrap(header, 0).segmentLength();
            case ACK:
                return AckHeader.lengthFor(new AckHeader().wrap(header, 0).count());
            default:
                return type.minLength();
        }
    }
}
