package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16, items 1 and 2: a buffer the application released too early fails its own RPC, typed, and nothing
 * else: the engine keeps serving every other call, nothing leaks (the suite's leak check), no INTERNAL_ERROR.
 */
class ContainmentTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final TestNet.Node client = net.node("client", HomaConfig.defaults());
    private final TestNet.Node other = net.node("other", HomaConfig.defaults());
    private final TestNet.Node server = net.node("server", HomaConfig.defaults());

    @AfterEach
    void close() {
        net.close();
    }

    private void assertNoInternalErrors() {
        for (TestNet.Node n : new TestNet.Node[] {client, other, server}) {
            assertEquals(0, n.engine.metrics().drops(DropReason.INTERNAL_ERROR), n.name);
        }
    }

    @Test
    void aReleasedRequestIsRefusedTypedAndTheEngineKeepsServing() {
        ByteBuf released = TestNet.payload(300_000, 1);
        released.release();
        RpcRejectedException e = assertThrows(RpcRejectedException.class, () -> client.call(server, released));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertEquals(0, client.engine.clientRpcCount(), "no state left behind");

        long id = client.call(server, 300_000, 2);
        net.runUntil(() -> client.done(id), 500 * MS);
        assertTrue(client.responses.containsKey(id), () -> "later call failed: " + client.failures.get(id));
        assertNoInternalErrors();
    }

    @Test
    void aRequestReleasedWhileItIsBeingSentFailsOnlyItsOwnCall() {
        ByteBuf request = TestNet.payload(300_000, 3);
        long bad = client.call(server, request);
        request.release(); // the application's mistake: the engine owned it, its unscheduled bytes already left
        long good = client.call(server, 200_000, 4);
        long fromOther = other.call(server, 200_000, 5);
        net.runUntil(() -> client.done(bad) && client.done(good) && other.done(fromOther), 2_000 * MS);

        assertEquals(ErrorCode.INVALID_ARGUMENT, client.failures.get(bad).code(), () -> "" + client.failures);
        assertTrue(client.responses.containsKey(good), () -> "" + client.failures.get(good));
        assertTrue(other.responses.containsKey(fromOther));
        assertEquals(1, client.engine.metrics().unreadableMessages());
        net.runFor(50 * MS);
        assertEquals(0, server.engine.serverRpcCount() - server.heldRequests.size(),
                "the server dropped the half-received request when the client gave it up");
        assertEquals(2, server.requestsHandled);
        assertNoInternalErrors();
    }

    @Test
    void aResponseReleasedAfterReplyFailsOnlyThatCall() {
        server.handler = (handle, from, request) -> {
            if (request.readableBytes() != 100) {
                return request; // echo the others
            }
            ByteBuf response = TestNet.payload(300_000, 6);
            server.engine.reply(handle, response, net.now);
            response.release(); // the mistake of issue 16.2: the engine owns it now
            return null; // (the test net keeps the request and releases it at the end)
        };
        long bad = client.call(server, 100, 7);
        long good = client.call(server, 200_000, 8);
        long fromOther = other.call(server, 50_000, 9);
        net.runUntil(() -> client.done(bad) && client.done(good) && other.done(fromOther), 2_000 * MS);

        RpcFailure failure = client.failures.get(bad);
        assertTrue(failure != null && failure.code() == ErrorCode.UNAVAILABLE && !failure.retrySafe(),
                () -> "the broken call fails alone, not retry-safe: " + failure);
        assertTrue(client.responses.containsKey(good), () -> "" + client.failures.get(good));
        assertTrue(other.responses.containsKey(fromOther), () -> "" + other.failures.get(fromOther));
        assertEquals(1, server.engine.metrics().unreadableMessages());
        net.runUntilIdle(3_000 * MS);
        assertEquals(0, server.engine.serverRpcCount(), "nothing of the broken RPC is left");
        assertNoInternalErrors();
    }

    @Test
    void aReplyWithAnAlreadyReleasedBufferAnswersHandlerError() {
        server.handler = (handle, from, request) -> {
            ByteBuf response = TestNet.payload(300_000, 10);
            response.release();
            assertTrue(server.engine.reply(handle, response, net.now), "the handle counts as answered");
            return null;
        };
        long bad = client.call(server, 100, 11);
        net.runUntil(() -> client.done(bad), 500 * MS);
        assertEquals(ErrorCode.HANDLER_ERROR, client.failures.get(bad).code());
        server.handler = (handle, from, request) -> request;
        long good = client.call(server, 100_000, 12);
        net.runUntil(() -> client.done(good), 500 * MS);
        assertTrue(client.responses.containsKey(good));
        assertFalse(server.engine.isClosed());
        assertNoInternalErrors();
    }
}
