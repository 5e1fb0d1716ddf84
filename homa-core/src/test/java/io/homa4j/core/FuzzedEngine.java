package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine under attack, for the fuzz tests: it keeps a few live client RPCs (and, through the packets it is
 * fed, server RPCs) so that generated packets reach deep states. Generates valid packets of every type aimed at
 * those RPCs, mutates them, and feeds packets while checking that each one is accounted for exactly once.
 *
 * <p>Every choice comes from the {@link Random} given at construction, so a seeded generator replays a run and a
 * generator backed by fuzzer input lets a coverage-guided fuzzer steer every choice.
 */
final class FuzzedEngine implements PacketSink, RpcListener {
    static final InetSocketAddress PEER = new InetSocketAddress("198.18.0.2", 4000);
    static final InetSocketAddress STRANGER = new InetSocketAddress("198.18.0.9", 4000);
    static final InetSocketAddress SELF = new InetSocketAddress("198.18.0.1", 4000);
    private static final InetSocketAddress[] SOURCES = {PEER, PEER, PEER, STRANGER, SELF};

    final HomaEngine engine;
    final Random random;
    final ByteBufAllocator allocator;
    long now = 1_000_000_000L;
    long sent;
    final List<Long> clientIds = new ArrayList<>();
    int listenerCalls;

    FuzzedEngine(ByteBufAllocator allocator, Random random) {
        this.allocator = allocator;
        this.random = random;
        HomaConfig config = HomaConfig.builder().maxMessageBytes(1 << 20).maxServerRpcs(64)
                .maxBufferedBytesTotal(8 << 20).build();
        this.engine = new HomaEngine(config, this, this, allocator, now);
    }

    /** Starts client calls until four are live. */
    void refillState() {
        while (engine.clientRpcCount() < 4) {
            clientIds.add(engine.call(PEER, filled(random.nextInt(60_000)), Long.MAX_VALUE, now));
            if (clientIds.size() > 64) {
                clientIds.remove(0);
            }
        }
    }

    /** Moves the clock forward by up to 2 ms and runs timers. */
    void advance() {
        now += random.nextInt(2_000_000);
        engine.poll(now);
        refillState();
    }

    private ByteBuf filled(int length) {
        ByteBuf b = allocator.heapBuffer(length);
        b.writerIndex(length);
        return b;
    }

    @Override
    public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
        try {
            assertTrue(priorityLevel >= 0 && priorityLevel < 8);
            assertNull(PacketDecoder.check(packet), "engine emitted an invalid packet");
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
                engine.reply(serverHandle, allocator.heapBuffer(0), now);
                break;
            case 1:
                engine.replyError(serverHandle, "fuzz", now);
                break;
            default:
                engine.reply(serverHandle, filled(random.nextInt(40_000)), now);
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

    /** A source address: mostly the peer the live RPCs belong to, sometimes a stranger or ourselves. */
    InetSocketAddress source() {
        return SOURCES[random.nextInt(SOURCES.length)];
    }

    /** Valid packets of every type, aimed at the live RPCs (or near them). */
    ByteBuf validPacket(PacketEncoder enc) {
        Random r = random;
        long clientId = clientIds.isEmpty() ? 2 : clientIds.get(r.nextInt(clientIds.size()));
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

    /** Releases {@code valid} and returns a heap copy with one kind of damage (or none). */
    ByteBuf mutate(ByteBuf valid) {
        Random r = random;
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
                byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + r.nextInt(64));
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

    /** Random bytes, half of them starting with the magic (and some with the version) to get past the first check. */
    ByteBuf randomBytes() {
        Random r = random;
        byte[] bytes = new byte[r.nextInt(4) == 0 ? r.nextInt(CommonHeader.LENGTH + 1) : r.nextInt(1600)];
        r.nextBytes(bytes);
        if (r.nextBoolean() && bytes.length >= 2) {
            bytes[0] = 0x48;
            bytes[1] = 0x4D;
            if (bytes.length >= 3 && r.nextBoolean()) {
                bytes[2] = CommonHeader.VERSION;
            }
        }
        return Unpooled.wrappedBuffer(bytes);
    }

    /**
     * Runs the decoder and then the engine on {@code packet}, and checks that the engine released it and counted
     * it exactly once: handled, or dropped under one reason.
     */
    void feed(ByteBuf packet, InetSocketAddress from) {
        PacketDecoder.check(packet); // decoder first (never throws), on the same bytes
        MetricsSnapshot before = engine.metrics();
        long handledBefore = engine.packetsHandled();
        boolean counted = packet.capacity() > 0; // Netty's shared empty buffer ignores release()
        engine.onPacket(from, packet, now);
        if (counted) {
            assertEquals(0, packet.refCnt(), "the engine releases every packet exactly once");
        }
        MetricsSnapshot after = engine.metrics();
        long accounted = (after.totalDrops() - before.totalDrops()) + (engine.packetsHandled() - handledBefore);
        assertEquals(1, accounted, "a packet is either handled or dropped under one reason");
    }

    /** No processing bug was hit, and state stays within the configured caps. */
    void assertHealthy() {
        MetricsSnapshot m = engine.metrics();
        assertEquals(0, m.drops(DropReason.INTERNAL_ERROR), "no processing bug was hit");
        assertEquals(0, m.listenerErrors());
        assertTrue(engine.serverRpcCount() <= engine.config().maxServerRpcs());
        assertTrue(engine.bufferedBytes() <= engine.config().maxBufferedBytesTotal());
    }

    /** Closes the engine and checks that close released all state. */
    void closeAndAssertEmpty() {
        engine.close(now);
        assertEquals(0, engine.bufferedBytes());
        assertEquals(0, engine.outgoingBytes());
        assertEquals(0, engine.serverRpcCount());
        assertEquals(0, engine.clientRpcCount());
    }
}
