package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.DataHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Packets handed to the engine as regions of the buffer they were read in, as a UDP GRO read holds them. */
class PacketBatchTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    private static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 2);
    private static final long NOW = 1_000_000_000L;

    private final List<ByteBuf> sent = new ArrayList<>();
    private final List<ByteBuf> requests = new ArrayList<>();
    private HomaEngine client;
    private HomaEngine server;

    @AfterEach
    void release() {
        if (client != null) {
            client.close(NOW);
            server.close(NOW);
        }
        sent.forEach(ByteBuf::release);
        requests.forEach(ByteBuf::release);
    }

    @Test
    void aFullBatchRefusesMoreAndRegionsMustLieInTheReadableBytes() {
        PacketBatch batch = new PacketBatch(2);
        ByteBuf read = Unpooled.buffer(100).writeZero(100).readerIndex(10);
        batch.add(CLIENT, read, 10, 40);
        assertThrows(IndexOutOfBoundsException.class, () -> batch.add(CLIENT, read, 5, 10), "before the reader");
        assertThrows(IndexOutOfBoundsException.class, () -> batch.add(CLIENT, read, 90, 11), "past the writer");
        batch.add(CLIENT, read, 50, 50);
        assertTrue(batch.isFull());
        assertThrows(IllegalStateException.class, () -> batch.add(CLIENT, read, 50, 1));
        assertEquals(50, batch.index(1));
        assertThrows(IndexOutOfBoundsException.class, () -> batch.length(2));
        batch.clear();
        assertTrue(batch.isEmpty());
        assertThrows(IndexOutOfBoundsException.class, () -> batch.buffer(0), "cleared slots are gone");
        assertEquals(1, read.refCnt(), "the batch never retains or releases");
    }

    @Test
    void theEngineReadsEachRegionOfOneBufferAndLeavesTheBufferToItsCaller() {
        startEngines();
        byte[] payload = new byte[5_000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31);
        }
        client.call(SERVER, Unpooled.wrappedBuffer(payload), Long.MAX_VALUE, NOW);
        assertTrue(sent.size() >= 4, "a 5,000-byte request takes several packets: " + sent.size());

        // One GRO-like read: 7 bytes of something else, then the packets back to back.
        ByteBuf read = Unpooled.directBuffer();
        read.writeZero(7).readerIndex(7);
        PacketBatch batch = new PacketBatch(16);
        int[] starts = new int[sent.size()];
        for (int i = 0; i < sent.size(); i++) {
            starts[i] = read.writerIndex();
            read.writeBytes(sent.get(i), sent.get(i).readerIndex(), sent.get(i).readableBytes());
        }
        for (int i = 0; i < sent.size(); i++) {
            batch.add(CLIENT, read, starts[i], sent.get(i).readableBytes());
        }
        server.onPackets(batch, NOW);

        assertEquals(1, read.refCnt(), "the read stays the caller's");
        assertEquals(1, requests.size());
        byte[] received = new byte[payload.length];
        requests.get(0).getBytes(requests.get(0).readerIndex(), received);
        assertArrayEquals(payload, received);
        read.release();
    }

    @Test
    void aRegionShorterThanItsPacketIsTruncatedEvenWhenTheBufferGoesOn() {
        startEngines();
        client.call(SERVER, Unpooled.wrappedBuffer(new byte[3_000]), Long.MAX_VALUE, NOW);
        ByteBuf first = sent.get(0);
        ByteBuf read = Unpooled.buffer();
        read.writeBytes(first, first.readerIndex(), first.readableBytes());
        read.writeZero(2_000); // more bytes follow in the buffer, but they are not this packet's
        PacketBatch batch = new PacketBatch(1);
        batch.add(CLIENT, read, 0, DataHeader.LENGTH + 10);
        server.onPackets(batch, NOW);
        assertEquals(1, server.metrics().drops(DropReason.TRUNCATED));
        assertTrue(requests.isEmpty());
        assertEquals(1, read.refCnt());
        read.release();
    }

    @Test
    void theDefaultTakesTheRegionsOneByOneAsSlices() {
        List<ByteBuf> seen = new ArrayList<>();
        PacketDriven slices = new PacketDriven() {
            @Override
            public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
                seen.add(packet);
            }

            @Override
            public void poll(long nowNanos) {
            }

            @Override
            public long nextWakeNanos() {
                return Long.MAX_VALUE;
            }

            @Override
            public void close(long nowNanos) {
            }
        };
        ByteBuf read = Unpooled.buffer().writeInt(1).writeInt(2).writeInt(3);
        PacketBatch batch = new PacketBatch(4);
        batch.add(CLIENT, read, 0, 4);
        batch.add(CLIENT, read, 4, 8);
        slices.onPackets(batch, NOW);
        read.release();
        assertEquals(2, seen.size());
        assertEquals(1, seen.get(0).getInt(0));
        assertEquals(8, seen.get(1).readableBytes());
        assertEquals(2, read.refCnt(), "each slice retained the read for its new owner");
        seen.forEach(ByteBuf::release);
        assertEquals(0, read.refCnt());
    }

    private void startEngines() {
        HomaConfig config = HomaConfig.builder().build();
        RpcListener serverSide = new RpcListener() {
            @Override
            public void onRequest(long serverHandle, InetSocketAddress from, ByteBuf request) {
                requests.add(request);
            }

            @Override
            public void onResponse(long rpcId, ByteBuf response) {
                response.release();
            }

            @Override
            public void onCallFailed(long rpcId, RpcFailure failure) {
            }
        };
        PacketSink capture = new PacketSink() {
            @Override
            public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
                sent.add(packet);
            }

            @Override
            public void flush() {
            }
        };
        PacketSink discard = new PacketSink() {
            @Override
            public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
                packet.release();
            }

            @Override
            public void flush() {
            }
        };
        client = new HomaEngine(config, capture, serverSide, ByteBufAllocator.DEFAULT, NOW);
        server = new HomaEngine(config, discard, serverSide, ByteBufAllocator.DEFAULT, NOW);
    }
}
