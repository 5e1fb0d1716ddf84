package io.homa4j.faults;

import io.homa4j.HomaEndpoint;
import io.homa4j.TransportType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A packet filter judges single datagrams in both directions, also where the kernel would coalesce a peer's run of
 * packets into one read (UDP GRO): the filter's "5% loss" must mean 5% of packets, not 5% of coalesced runs of up
 * to 45 packets (which made soak's inbound loss bursty and rare: 8,626 drops for 126,181 outbound in one run).
 */
class FilterSeesSingleDatagramsTest {

    /** Counts what the filter is shown inbound, and passes it on. Event loop only (counters read after close). */
    private static final class Counting implements DatagramFilter {
        int inbound;
        int largestInbound;

        @Override
        public void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, DatagramPath path) {
            path.forward(peer, priorityLevel, packet);
        }

        @Override
        public void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path) {
            inbound++;
            largestInbound = Math.max(largestInbound, packet.readableBytes());
            path.forward(from, 0, packet);
        }
    }

    @Test
    void aFilteredEndpointSeesEachPacketOfAPeersGsoRunAlone() throws Exception {
        Counting filter = new Counting();
        int maxUdpPayload;
        try (HomaEndpoint server = HomaEndpoint.builder().transport(TransportType.AUTO).build();
             HomaEndpoint client = HomaEndpoint.builder().packetFilter(filter).build()) {
            maxUdpPayload = client.config().maxUdpPayload();
            server.serve((ctx, request) -> ctx.reply(request.retain())); // the server sends GSO runs: no filter
            for (int i = 0; i < 4; i++) {
                ByteBuf response = client.call(server.localAddress(), Unpooled.wrappedBuffer(new byte[400_000]))
                        .get(30, TimeUnit.SECONDS);
                assertEquals(400_000, response.readableBytes());
                response.release();
            }
        }
        assertTrue(filter.inbound >= 4 * 400_000 / maxUdpPayload, "one datagram per packet: " + filter.inbound);
        assertTrue(filter.largestInbound <= maxUdpPayload,
                "no coalesced run reached the filter: largest " + filter.largestInbound + " B");
    }
}
