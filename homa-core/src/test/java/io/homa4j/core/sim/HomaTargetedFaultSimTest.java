package io.homa4j.core.sim;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-picked losses ({@link PacketFilter}) that random loss rarely produces: every GRANT for a while, the last
 * DATA packet of a message, every ACK and NEED_ACK, a partition shorter and one longer than the abort timeout.
 */
class HomaTargetedFaultSimTest {
    private static final int SIZE = 200_000;
    private SimulatedNetwork network;
    private HomaHost client;
    private HomaHost server;
    private HomaConfig config;

    @BeforeEach
    void start() {
        config = SimScenarios.engineConfig().build();
        network = new SimulatedNetwork(SimScenarios.rack(2).build());
        client = HomaHost.attach(network, 0, config);
        server = HomaHost.attach(network, 1, config);
        server.serve(RequestHandler.echo());
    }

    @AfterEach
    void close() {
        network.close();
    }

    private static PacketType type(ByteBuf packet) {
        return PacketType.fromCode(packet.getUnsignedByte(packet.readerIndex() + CommonHeader.TYPE_OFFSET));
    }

    @Test
    void everyGrantLostForTwentyMillisecondsStillCompletes() {
        network.filter((from, to, level, packet, now) -> now < 20 * MILLIS && type(packet) == PacketType.GRANT);
        SimCall call = await(network, client.call(server, Payloads.random(SIZE, 1)), SECONDS);
        assertTrue(call.echoedRequest(), call.toString());
        assertTrue(network.drops(NetworkDropReason.FILTERED) > 0);
        assertTrue(call.completionNanos() > 20 * MILLIS, "could not finish before grants got through");
        assertNoStateLeft(network, client, server);
    }

    @Test
    void theLastDataPacketOfEachMessageLostOnceIsRecovered() {
        boolean[] droppedFrom = new boolean[2];
        network.filter((from, to, level, packet, now) -> {
            if (type(packet) != PacketType.DATA || droppedFrom[from.index()]) {
                return false;
            }
            int start = packet.readerIndex();
            int length = packet.getInt(start + DataHeader.MESSAGE_LENGTH_OFFSET);
            int offset = packet.getInt(start + DataHeader.OFFSET_OFFSET);
            int payload = packet.readableBytes() - DataHeader.LENGTH;
            if (offset + payload >= length) {
                droppedFrom[from.index()] = true; // request's last packet from the client, response's from the server
                return true;
            }
            return false;
        });
        SimCall call = await(network, client.call(server, Payloads.random(SIZE, 2)), SECONDS);
        assertTrue(call.echoedRequest(), call.toString());
        assertEquals(2, network.drops(NetworkDropReason.FILTERED));
        assertNoStateLeft(network, client, server);
    }

    @Test
    void withEveryAckLostTheServerStillFreesTheRpc() {
        network.filter((from, to, level, packet, now) -> {
            PacketType t = type(packet);
            return t == PacketType.ACK || t == PacketType.NEED_ACK;
        });
        SimCall call = await(network, client.call(server, Payloads.random(SIZE, 3)), SECONDS);
        assertTrue(call.echoedRequest(), call.toString());
        assertNoStateLeft(network, client, server); // within 10 virtual seconds: the abort timeout frees it
    }

    @Test
    void aPartitionShorterThanTheAbortTimeoutHeals() {
        long heal = config.abortTicks() * config.tickNanos() / 2;
        network.filter((from, to, level, packet, now) -> now >= 100_000 && now < 100_000 + heal);
        SimCall call = await(network, client.call(server, Payloads.random(SIZE, 4)), SECONDS);
        assertTrue(call.echoedRequest(), call.toString());
        assertTrue(call.completionNanos() > heal, call.toString());
        assertNoStateLeft(network, client, server);
    }

    @Test
    void aPartitionLongerThanTheAbortTimeoutFailsTyped() {
        long abort = config.abortTicks() * config.tickNanos();
        network.filter((from, to, level, packet, now) -> now >= 100_000 && now < 100_000 + 3 * abort);
        SimCall call = await(network, client.call(server, Payloads.random(SIZE, 5)), 2 * abort);
        assertEquals(ErrorCode.UNAVAILABLE, call.failure().code(), call.toString());
        network.runFor(3 * abort); // heal; nothing of the failed call may linger
        assertNoStateLeft(network, client, server);
    }
}
