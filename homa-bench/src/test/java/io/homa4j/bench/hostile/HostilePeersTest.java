package io.homa4j.bench.hostile;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An echo server with small caps, attacked over loopback UDP from 32 source ports by spoofed DATA, oversized
 * requests, GRANT and RESEND for ids that never existed and floods of unscheduled bytes, while a real client keeps
 * calling. The caps hold and every attack packet is dropped under its reason in both tests; real calls keep
 * completing while the attack fills the buffer caps but not the server RPC slots, and still all end (byte-exact
 * or UNAVAILABLE, never lost) when it fills those too (docs/reliability.md, threat model).
 */
class HostilePeersTest {
    private static final HomaConfig BUFFER_CAPS = HomaConfig.builder().maxMessageBytes(1_000_000)
            .maxServerRpcs(2_000).maxBufferedBytesTotal(4_000_000).maxBufferedBytesPerPeer(1_500_000).build();

    @Test
    void bufferCapsHoldAndSinglePacketCallsKeepCompleting() throws Exception {
        // Real requests of one packet need no buffer reservation, so a full buffer cap does not stop them.
        HostileResult r = HostileRun.run(new HostilePlan(3, 1_500, 32, BUFFER_CAPS, 1_000_000, 30_000, 2, 1_000, 11));
        String context = r.toString();
        assertEveryRealCallEnded(r);
        assertTrue(r.realCompleted() >= 500, "real calls kept completing: " + context);
        assertCapsHeld(r, BUFFER_CAPS);
        MetricsSnapshot server = r.server();
        assertTrue(server.bufferedBytesHighWater() > BUFFER_CAPS.maxBufferedBytesTotal() / 2,
                "the flood really pressed on the buffer cap: " + context);
        assertTrue(server.drops(DropReason.TOTAL_BUFFER_LIMIT) + server.drops(DropReason.PEER_BUFFER_LIMIT) > 0,
                "the flood hit the buffer caps: " + context);
    }

    @Test
    void serverRpcCapHoldsAndEveryRealCallStillEnds() throws Exception {
        HomaConfig caps = BUFFER_CAPS.toBuilder().maxServerRpcs(32).build();
        HostileResult r = HostileRun.run(new HostilePlan(2, 1_500, 32, caps, 1_000_000, 30_000, 2, 20_000, 12));
        assertEveryRealCallEnded(r);
        assertCapsHeld(r, caps);
        assertTrue(r.server().drops(DropReason.SERVER_RPC_LIMIT) > 0, "the RPC cap was hit: " + r);
    }

    private static void assertEveryRealCallEnded(HostileResult r) {
        System.out.println(r); // kept in the test output for diagnosis
        assertEquals(0, r.realLost(), "every real call ended: " + r);
        assertEquals(0, r.realMismatched(), r.toString());
        assertEquals(0, r.realUntyped(), r.toString());
        for (ErrorCode code : r.realFailed().keySet()) {
            assertEquals(ErrorCode.UNAVAILABLE, code, "the only failure a real call may see: " + r);
        }
    }

    private static void assertCapsHeld(HostileResult r, HomaConfig caps) {
        MetricsSnapshot server = r.server();
        assertTrue(r.attackPacketsTotal() >= 1_000, "the attack happened: " + r);
        assertTrue(r.serverRpcsHighWater() <= caps.maxServerRpcs(), r.toString());
        assertTrue(server.bufferedBytesHighWater() <= caps.maxBufferedBytesTotal(), r.toString());
        assertTrue(server.drops(DropReason.UNKNOWN_RPC) > 0, "spoofed DATA, ghost GRANT/RESEND: " + r);
        assertTrue(server.drops(DropReason.MESSAGE_TOO_LARGE) > 0, "huge declared lengths: " + r);
        assertEquals(0, server.drops(DropReason.INTERNAL_ERROR), r.toString());
        assertEquals(0, server.listenerErrors(), r.toString());
    }
}
