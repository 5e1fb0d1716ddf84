package io.homa4j.core;

import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
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

    @Test
    void decoderAloneOnAllShortPrefixesOfRandomHeaders() {
        Random r = new Random(99);
        int cases = 0;
        for (int i = 0; i < 2_000; i++) {
            byte[] bytes = new byte[64];
            r.nextBytes(bytes);
            bytes[0] = 0x48;
            bytes[1] = 0x4D;
            bytes[2] = CommonHeader.VERSION;
            bytes[3] = (byte) PacketType.values()[r.nextInt(PacketType.values().length)].code();
            for (int len = 0; len <= bytes.length; len++) {
                PacketDecoder.check(Unpooled.wrappedBuffer(bytes, 0, len));
                cases++;
            }
        }
        assertEquals(130_000, cases);
    }
}
