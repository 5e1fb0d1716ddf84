package io.homa4j.core.sim;

import io.homa4j.core.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness itself: calls, handlers, generations, callbacks, buffer ownership. */
class HomaHostTest {
    private SimulatedNetwork network;
    private HomaHost[] hosts;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private void start(int n) {
        network = new SimulatedNetwork(SimScenarios.rack(n).build());
        hosts = HomaHost.attachAll(network, SimScenarios.engineConfig().build());
    }

    @Test
    void retainedResponsesCarryTheBytesAndCallbacksChainCalls() {
        start(2);
        hosts[1].serve(RequestHandler.echo());
        hosts[0].retainResponses(true);
        List<SimCall> chain = new ArrayList<>();
        SimCall first = hosts[0].call(hosts[1], Payloads.random(300, 5));
        first.whenDone(c -> chain.add(hosts[0].call(hosts[1], Payloads.random(40, 6))));
        assertTrue(network.runUntil(() -> chain.size() == 1 && chain.get(0).isDone(), SECONDS));

        byte[] expected = new byte[300];
        var buf = Payloads.random(300, 5);
        buf.readBytes(expected);
        buf.release();
        assertArrayEquals(expected, first.responseData());
        assertTrue(chain.get(0).echoedRequest());
        assertTrue(chain.get(0).startNanos() == first.completionNanos(), "chained at the first one's completion");
        assertNoStateLeft(network, hosts);
    }

    @Test
    void withoutChecksumsOnlyLengthsAreCompared() {
        start(2);
        hosts[1].serve(request -> {
            int n = request.payload().readableBytes();
            request.payload().release();
            request.reply(Payloads.random(n, 999)); // same length, other bytes
        });
        SimCall checked = await(network, hosts[0].call(hosts[1], Payloads.random(500, 1)), SECONDS);
        assertFalse(checked.echoedRequest(), "checksums catch the different bytes");
        hosts[0].checksumPayloads(false);
        SimCall unchecked = await(network, hosts[0].call(hosts[1], Payloads.random(500, 1)), SECONDS);
        assertTrue(unchecked.echoedRequest());
        assertEquals(0, unchecked.responseCrc32c());
        assertNoStateLeft(network, hosts);
    }

    @Test
    void aHostWithoutAHandlerAnswersWithAHandlerError() {
        start(2);
        SimCall call = await(network, hosts[0].call(hosts[1], Payloads.random(10, 1)), SECONDS);
        assertEquals(ErrorCode.HANDLER_ERROR, call.failure().code(), call.toString());
        assertEquals(1, hosts[1].requestsReceived());
        assertNoStateLeft(network, hosts);
    }

    @Test
    void callsFromACrashedHostAreRejectedAndItsOwnCallsEnd() {
        start(3);
        hosts[1].serve(RequestHandler.echoAfter(50 * MILLIS));
        hosts[2].serve(RequestHandler.echo());
        SimCall pending = hosts[0].call(hosts[1], Payloads.random(10, 1));
        network.runFor(MILLIS);
        hosts[0].crash();
        assertTrue(pending.isDone(), "closing the engine ended its call: " + pending);
        assertFalse(pending.succeeded());
        assertNull(hosts[0].engine());
        SimCall rejected = hosts[0].call(hosts[1], Payloads.random(10, 2));
        assertTrue(rejected.wasRejected());
        assertEquals(ErrorCode.CANCELLED, rejected.failure().code());
        hosts[0].restart();
        assertEquals(2, hosts[0].generation());
        // A server that never saw the old incarnation (see the disabled test below for the one that did).
        SimCall after = await(network, hosts[0].call(hosts[2], Payloads.random(10, 3)), SECONDS);
        assertTrue(after.echoedRequest(), after.toString());
    }

    /**
     * A restarted client must not take a response meant for its previous incarnation. Here the server answers the
     * pre-crash call (id 2) 50 ms late; the restarted engine has reused id 2 for a new call to the same server.
     */
    @Test
    void aRestartedClientDoesNotTakeALateResponseForItsPreviousIncarnation() {
        start(2);
        hosts[1].serve(RequestHandler.echoAfter(50 * MILLIS));
        hosts[0].call(hosts[1], Payloads.random(10, 1));
        network.runFor(MILLIS);
        hosts[0].replaceEngine();
        SimCall after = await(network, hosts[0].call(hosts[1], Payloads.random(10, 3)), SECONDS);
        assertTrue(after.echoedRequest(), after.toString());
    }

    @Test
    void aDelayedReplyOfADeadEngineIsReleasedNotSent() {
        start(2);
        hosts[1].serve(RequestHandler.echoAfter(10 * MILLIS));
        SimCall call = hosts[0].call(hosts[1], Payloads.random(20_000, 1));
        assertTrue(network.runUntil(() -> hosts[1].requestsReceived() == 1, SECONDS));
        long sentBefore = network.host(1).packetsSent();
        hosts[1].replaceEngine();
        network.runFor(20 * MILLIS);
        assertEquals(0, hosts[1].discardedSends());
        // Only control packets (RPC_UNKNOWN and the like) left the new engine, no 20 KB response.
        assertTrue(network.host(1).bytesSent() < 20_000, "bytes sent " + network.host(1).bytesSent());
        assertTrue(network.host(1).packetsSent() - sentBefore < 10);
        await(network, call, SECONDS);
        assertFalse(call.succeeded());
        // The leak check of this class proves the 20 KB reply buffer was released.
    }

    @Test
    void answeringTwiceIsRejectedAndReleasesTheSecondReply() {
        start(2);
        List<IllegalStateException> errors = new ArrayList<>();
        hosts[1].serve(request -> {
            request.reply(request.payload());
            try {
                request.reply(Payloads.random(10, 9));
            } catch (IllegalStateException e) {
                errors.add(e);
            }
        });
        SimCall call = await(network, hosts[0].call(hosts[1], Payloads.random(10, 1)), SECONDS);
        assertTrue(call.echoedRequest());
        assertEquals(1, errors.size());
        assertThrows(IllegalArgumentException.class, () -> network.scheduleAfter(-1, () -> { }));
        assertNoStateLeft(network, hosts);
    }
}
