package io.homa4j.core.sim;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.homa4j.core.sim.SimScenarios.MILLIS;
import static io.homa4j.core.sim.SimScenarios.SECONDS;
import static io.homa4j.core.sim.SimScenarios.assertNoStateLeft;
import static io.homa4j.core.sim.SimScenarios.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server loses all RPC state mid-RPC (its engine is replaced): the client gets a response after a retry or a
 * typed error, never a hang, and a handler never runs twice for one call.
 */
class HomaStateLossSimTest {
    private static final int BIG = 1_000_000;
    private SimulatedNetwork network;
    private HomaHost client;
    private HomaHost server;
    private HomaConfig config;

    @AfterEach
    void close() {
        if (network != null) {
            network.close();
        }
    }

    private void start(boolean retryOnServerStateLoss) {
        config = SimScenarios.engineConfig().retryOnServerStateLoss(retryOnServerStateLoss).build();
        network = new SimulatedNetwork(SimScenarios.rack(2).build());
        client = HomaHost.attach(network, 0, config);
        server = HomaHost.attach(network, 1, config);
        server.serve(RequestHandler.echo());
    }

    /** A bound no call may exceed: the abort timeout plus a few resend periods. */
    private long noHangBound() {
        return (config.abortTicks() + 4L * config.resendTicks()) * config.tickNanos();
    }

    @Test
    void stateLostWhileTheRequestArrivesIsRetriedAndAnswered() {
        start(true);
        SimCall call = client.call(server, Payloads.random(BIG, 1));
        network.runFor(400_000); // about half of the 0.8 ms the request takes
        assertFalse(call.isDone());
        assertEquals(0, server.requestsReceived(), "request not yet whole");
        server.replaceEngine();
        await(network, call, noHangBound());

        assertTrue(call.echoedRequest(), call.toString());
        assertEquals(1, server.requestsReceived(), "handler ran once, on the new engine");
        assertEquals(2, server.generation());
        assertNoStateLeft(network, client, server);
    }

    /**
     * Without client retries the call may still succeed: the new engine may rebuild the server RPC from the DATA
     * packets still arriving (and RESEND the rest), as the Linux module does. Either way it ends, byte-exact or
     * with a typed, retry-safe error, and the handler runs at most once.
     */
    @Test
    void stateLostWhileTheRequestArrivesEndsInAResponseOrATypedErrorWhenRetryIsOff() {
        start(false);
        SimCall call = client.call(server, Payloads.random(BIG, 1));
        network.runFor(400_000);
        server.replaceEngine();
        await(network, call, noHangBound());

        assertEquals(0, client.engine().metrics().clientRestarts(), "retry is off");
        if (call.succeeded()) {
            assertTrue(call.echoedRequest(), call.toString());
            assertEquals(1, server.requestsReceived());
        } else {
            assertEquals(ErrorCode.UNAVAILABLE, call.failure().code(), call.toString());
            assertTrue(call.failure().retrySafe(), "the request never reached a handler: " + call.failure());
            assertEquals(0, server.requestsReceived());
        }
        assertNoStateLeft(network, client, server);
    }

    @Test
    void stateLostWhileTheHandlerWorksFailsTypedAndDoesNotRerun() {
        start(true);
        server.serve(RequestHandler.echoAfter(2 * MILLIS));
        SimCall call = client.call(server, Payloads.random(10_000, 2));
        assertTrue(network.runUntil(() -> server.requestsReceived() == 1, SECONDS));
        server.replaceEngine(); // the pending reply belongs to the old engine and is discarded
        await(network, call, noHangBound());

        assertFalse(call.succeeded(), call.toString());
        assertEquals(ErrorCode.UNAVAILABLE, call.failure().code(), call.toString());
        assertFalse(call.failure().retrySafe(), "the handler had the request: " + call.failure());
        assertEquals(1, server.requestsReceived(), "not re-sent, so the handler did not run twice");
        assertNoStateLeft(network, client, server);
    }

    @Test
    void stateLostWhileTheResponseIsSentFailsTyped() {
        start(true);
        SimCall call = client.call(server, Payloads.random(BIG, 3));
        assertTrue(network.runUntil(() -> server.requestsReceived() == 1, SECONDS));
        network.runFor(300_000); // part of the 1 MB response is on its way
        assertFalse(call.isDone());
        server.replaceEngine();
        await(network, call, noHangBound());

        assertFalse(call.succeeded(), call.toString());
        assertEquals(ErrorCode.UNAVAILABLE, call.failure().code(), call.toString());
        assertEquals(1, server.requestsReceived());
        assertNoStateLeft(network, client, server);
    }

    @Test
    void serverDownForGoodFailsTheCallWithinTheAbortTimeout() {
        start(true);
        SimCall call = client.call(server, Payloads.random(BIG, 4));
        network.runFor(200_000);
        server.crash();
        await(network, call, noHangBound());

        assertEquals(ErrorCode.UNAVAILABLE, call.failure().code(), call.toString());
        assertTrue(network.drops(NetworkDropReason.HOST_DOWN) > 0);
        assertNoStateLeft(network, client);
    }
}
