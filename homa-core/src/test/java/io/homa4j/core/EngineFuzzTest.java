package io.homa4j.core;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.UnpooledByteBufAllocator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Coverage-guided fuzz target (Jazzer) for {@link HomaEngine#onPacket}: each input is a short session against a
 * fresh engine with live client RPCs (and server RPCs created by the packets themselves): random bytes, valid
 * packets aimed at the live RPCs, mutated ones, and clock advances with timer runs, every choice taken from the
 * fuzzer's input. Asserted after every packet: nothing escapes, the packet is released and counted once (handled
 * or dropped under one reason), no internal error, state within the caps. At the end: close frees all state and
 * every buffer the engine allocated was released.
 *
 * <p>In the test suite this replays the checked-in corpus ({@code src/test/resources/io/homa4j/core/
 * EngineFuzzTestInputs/engineOnPacket}) and, in a second surefire execution with {@code JAZZER_FUZZ=1}, fuzzes for
 * a few seconds. The long run is the {@code fuzz} profile (docs/reliability.md). The seeded counterpart is
 * {@link MalformedPacketFuzzTest}.
 */
class EngineFuzzTest {
    /** Operations per input at most: long enough to build and tear down RPC state, short enough to run fast. */
    private static final int MAX_STEPS = 64;
    /** Input packets are fuzz material, not engine output: their own allocator, not counted. */
    private static final PacketEncoder INPUT_ENCODER = new PacketEncoder(new UnpooledByteBufAllocator(false, true));

    @FuzzTest(maxDuration = "5s")
    void engineOnPacket(FuzzedDataProvider data) {
        fuzzerTestOneInput(data);
    }

    /** The same target for Jazzer's standalone driver (corpus merges: docs/reliability.md). */
    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        // A fresh allocator per input: its counters prove that the engine released everything it allocated.
        UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(false, true);
        FuzzChoices choices = new FuzzChoices(data);
        FuzzedEngine t = new FuzzedEngine(allocator, choices);
        t.refillState();
        for (int step = 0; step < MAX_STEPS && choices.hasMore(); step++) {
            switch (choices.nextInt(8)) {
                case 0:
                    t.feed(t.randomBytes(), t.source());
                    break;
                case 1:
                    t.advance();
                    break;
                case 2:
                case 3: // valid and from the right peer: builds server RPCs and completes client ones
                    t.feed(t.validPacket(INPUT_ENCODER), FuzzedEngine.PEER);
                    break;
                default:
                    t.feed(t.mutate(t.validPacket(INPUT_ENCODER)), t.source());
            }
            t.assertHealthy();
        }
        t.closeAndAssertEmpty();
        assertEquals(0, allocator.metric().usedHeapMemory(), "heap buffers the engine allocated were released");
        assertEquals(0, allocator.metric().usedDirectMemory(), "direct buffers the engine allocated were released");
    }
}
