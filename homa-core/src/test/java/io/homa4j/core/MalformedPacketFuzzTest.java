package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property: no byte sequence makes the decoder or {@code HomaEngine.onPacket} throw, and every packet the engine
 * receives is accounted for as either handled or dropped under a reason. Inputs: purely random bytes, and valid
 * packets of every type (aimed at live client and server RPCs) with random mutations. Fixed seeds.
 */
class MalformedPacketFuzzTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("198.18.0.2", 4000);
    private static final InetSocketAddress STRANGER = new InetSocketAddress("198.18.0.9", 4000);
    private static final InetSocketAddress SELF = new InetSocketAddress("198.18.0.1", 4000);

    /** The engine under attack, with live RPCs for mutated packets to hit. */
    private static final class Target implements PacketSink, RpcListener {
        final HomaEngine engine;
        final Random random;
        long now = 1_000_000_000L;
        long sent;
        final List<Long> clientIds = new ArrayList<>();
        int listenerCalls;

        Target(ByteBufAllocator allocator, long seed) {
            this.random = new Random(seed);
            HomaConfig config = HomaConfig.builder().maxMessageBytes(1 << 20).maxServerRpcs(64)
                    .maxBufferedBytesTotal(8 << 20).build();
            this.engine = new HomaEngine(config, this, this, allocator, now);
        }

        void refillState() {
            while (engine.clientRpcCount() < 4) {
                ByteBuf request = Unpooled.buffer(random.nextInt(60_000));
                request.writerIndex(request.capacity());
                clientIds.add(engine.call(PEER, request, Long.MAX_VALUE, now));
                if (clientIds.size() > 64) {
                    clientIds.remove(0);
                }
            }
        }

        @Override
        public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            try {
                assertTrue(priorityLevel >= 0 && priorityLevel < 8);
                assertEquals(null, PacketDecoder.check(packet), "engine emitted an invalid packet");
            } finally {
                packet.release();
            }
            sent++;
        }

        @Override
        public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
            listenerCalls++;
            request.release();
            switch (random.nextInt(3)) {
                case 0:
                    engine.reply(serverHandle, Unpooled.buffer(0), now);
                    break;
                case 1:
                    engine.replyError(serverHandle, "fuzz", now);
                    break;
                default:
                    ByteBuf response = Unpooled.buffer(random.nextInt(40_000));
                    response.writerIndex(response.capacity());
                    engine.reply(serverHandle, response, now);
            }
        }

        @Override
        public void onResponse(long rpcId, ByteBuf response) {
            listenerCalls++;
            response.release();
        }

        @Override
        public void onCallFailed(long rpcId, RpcFailure failure) {
            listenerCalls++;
        }
    }

    /** Valid packets of every type, aimed at the target's live RPCs (or near them). */
    private static ByteBuf validPacket(Random r, PacketEncoder enc, Target t) {
        long clientId = t.clientIds.isEmpty() ? 2 : t.clientIds.get(r.nextInt(t.clientIds.size()));
        long towardsClient = clientId ^ 1; // what the server (PEER) puts in packets for our client RPC
        long peerClientId = 2L * (1 + r.nextInt(40)); // RPCs where PEER is the client and we serve
        long id = r.nextBoolean() ? towardsClient : peerClientId;
        int messageLength = r.nextInt(4) == 0 ? r.nextInt(100) : r.nextInt(200_000);
        int segment = Math.min(messageLength, r.nextInt(1432) + 1);
        int offset = messageLength == segment ? 0 : r.nextInt(messageLength - segment + 1);
        switch (r.nextInt(9)) {
            case 0:
            case 1: {
                ByteBuf payload = Unpooled.buffer(messageLength == 0 ? 0 : offset + segment);
                payload.writerIndex(payload.capacity());
                try {
                    return enc.data(id, messageLength, offset, Math.min(messageLength, r.nextInt(300_000)),
                            r.nextInt(3), r.nextInt(4), r.nextBoolean() ? 0 : peerClientId, payload,
                            messageLength == 0 ? 0 : segment);
                } finally {
                    payload.release();
                }
            }
            case 2:
                return enc.grant(id, r.nextInt(300_000), r.nextInt(8));
            case 3:
                return enc.resend(id, r.nextInt(300_000), r.nextInt(100_000), r.nextInt(8));
            case 4:
                return enc.rpcUnknown(id, r.nextLong());
            case 5:
                return enc.busy(towardsClient);
            case 6: {
                int[] cutoffs = new int[8];
                for (int i = 0; i < 8; i++) {
                    cutoffs[i] = r.nextInt(3) == 0 ? 0 : r.nextInt(Integer.MAX_VALUE);
                }
                cutoffs[7] = 1 + r.nextInt(1000);
                return enc.cutoffs(cutoffs, r.nextInt(65_536));
            }
            case 7:
                return enc.needAck(towardsClient);
            default: {
                long[] ids = new long[1 + r.nextInt(5)];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = 2L * (1 + r.nextInt(40));
                }
                return enc.ack(peerClientId, ids, ids.length);
            }
        }
    }

    private static ByteBuf mutate(Random r, ByteBuf valid) {
        byte[] bytes = new byte[valid.readableBytes()];
        valid.getBytes(valid.readerIndex(), bytes);
        valid.release();
        switch (r.nextInt(6)) {
            case 0: { // flip a few bits anywhere
                int flips = 1 + r.nextInt(3);
                for (int i = 0; i < flips && bytes.length > 0; i++) {
                    bytes[r.nextInt(bytes.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return Unpooled.wrappedBuffer(bytes);
            }
            case 1: // truncate
                return Unpooled.wrappedBuffer(bytes, 0, r.nextInt(bytes.length + 1));
            case 2: { // extend with garbage
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1 + r.nextInt(64));
                for (int i = bytes.length; i < longer.length; i++) {
                    longer[i] = (byte) r.nextInt(256);
                }
                return Unpooled.wrappedBuffer(longer);
            }
            case 3: { // overwrite one 32-bit field after the common header with an extreme value
                if (bytes.length >= CommonHeader.LENGTH + 4) {
                    int at = CommonHeader.LENGTH + 4 * r.nextInt((bytes.length - CommonHeader.LENGTH) / 4);
                    int[] extremes = {0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1, 65_535, 65_536};
                    ByteBuf b = Unpooled.wrappedBuffer(bytes);
                    b.setInt(at, extremes[r.nextInt(extremes.length)]);
                    return b;
                }
                return Unpooled.wrappedBuffer(bytes);
            }
            case 4: { // random type code or version
                if (bytes.length >= 4) {
                    bytes[2 + r.nextInt(2)] = (byte) r.nextInt(256);
                }
                return Unpooled.wrappedBuffer(bytes);
            }
            default: // unchanged: valid but possibly stray or stale
                return Unpooled.wrappedBuffer(bytes);
        }
    }

    private static ByteBuf randomBytes(Random r) {
        byte[] bytes = new byte[r.nextInt(4) == 0 ? r.nextInt(CommonHeader.LENGTH + 1) : r.nextInt(1600)];
        r.nextBytes(bytes);
        if (r.nextBoolean() && bytes.length >= 2) { // half with our magic, to get past the first check
            bytes[0] = 0x48;
            bytes[1] = 0x4D;
            if (bytes.length >= 3 && r.nextBoolean()) {
                bytes[2] = CommonHeader.VERSION;
            }
        }
        return Unpooled.wrappedBuffer(bytes);
    }

    private static void feed(Target t, ByteBuf packet, InetSocketAddress from) {
        // decoder first (never throws), on the same bytes
        PacketDecoder.check(packet);
        MetricsSnapshot before = t.engine.metrics();
        long handledBefore = t.engine.packetsHandled();
        boolean counted = packet.capacity() > 0; // Netty's shared empty buffer ignores release()
        t.engine.onPacket(from, packet, t.now);
        if (counted) {
            assertEquals(0, packet.refCnt(), "the engine releases every packet exactly once");
        }
        MetricsSnapshot after = t.engine.metrics();
        long accounted = (after.totalDrops() - before.totalDrops()) + (t.engine.packetsHandled() - handledBefore);
        assertEquals(1, accounted, "a packet is either handled or dropped under one reason");
    }

    private static void run(Target t, int randomInputs, int mutatedInputs, long seed) {
        Random r = new Random(seed);
        // untracked heap buffers for the inputs: they are fuzz material, not engine output
        PacketEncoder encoder = new PacketEncoder(new UnpooledByteBufAllocator(false, true));
        InetSocketAddress[] sources = {PEER, PEER, PEER, STRANGER, SELF};
        t.refillState();
        long handledBefore = t.engine.packetsHandled();
        for (int i = 0; i < randomInputs; i++) {
            feed(t, randomBytes(r), sources[r.nextInt(sources.length)]);
        }
        assertEquals(handledBefore, t.engine.packetsHandled(), "random bytes are never handled, only dropped");

        for (int i = 0; i < mutatedInputs; i++) {
            feed(t, mutate(r, validPacket(r, encoder, t)), sources[r.nextInt(sources.length)]);
            if (i % 64 == 0) {
                t.now += r.nextInt(2_000_000);
                t.engine.poll(t.now);
                t.refillState();
            }
        }
        MetricsSnapshot m = t.engine.metrics();
        assertEquals(0, m.drops(DropReason.INTERNAL_ERROR), "no processing bug was hit");
        assertEquals(0, m.listenerErrors());
        assertEquals(randomInputs + mutatedInputs, m.totalDrops() + t.engine.packetsHandled());
        assertTrue(t.engine.packetsHandled() > mutatedInputs / 20, "mutations also reach deep paths: " + m);
        // State stays bounded while under attack, and close releases it all.
        assertTrue(t.engine.serverRpcCount() <= t.engine.config().maxServerRpcs());
        assertTrue(t.engine.bufferedBytes() <= t.engine.config().maxBufferedBytesTotal());
        t.engine.close(t.now);
        assertEquals(0, t.engine.bufferedBytes());
        assertEquals(0, t.engine.outgoingBytes());
        assertEquals(0, t.engine.serverRpcCount());
        assertEquals(0, t.engine.clientRpcCount());
    }

    @Test
    void hundredThousandRandomAndMutatedPackets() {
        // Engine output from an allocator the leak detector does not track, for speed; the next test covers
        // buffer balance under the paranoid detector.
        Target t = new Target(new UnpooledByteBufAllocator(false, true), 20_261_202L);
        run(t, 50_000, 70_000, 42L);
    }

    @Test
    void mutatedPacketsLeakNothingUnderTheLeakDetector() {
        Target t = new Target(ByteBufAllocator.DEFAULT, 7L);
        run(t, 500, 4_000, 4242L);
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
