package io.homa4j.core;

import io.homa4j.core.metrics.DropReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16, item 3 (and issue 17's "the handler learns when the client gave up"): a handler that never replies.
 * The client that gives up tells the server, which frees the RPC, tells the handler and counts its late reply;
 * a handler timeout bounds HANDLING for clients that never give up.
 */
class AbandonedCallTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final TestNet.Node client = net.node("client", HomaConfig.defaults());

    @AfterEach
    void close() {
        net.close();
    }

    @Test
    void aClientWhoseDeadlinePassesFreesTheServerRpcAndTheLateReplyIsCounted() {
        TestNet.Node server = net.node("server", HomaConfig.defaults());
        server.handler = (h, c, req) -> null; // never replies on its own
        long id = client.engine.call(server.address, TestNet.payload(50_000, 1), net.now() + 50 * MS, net.now());
        net.runUntil(() -> client.done(id), 200 * MS);
        assertEquals(ErrorCode.DEADLINE_EXCEEDED, client.failures.get(id).code());
        net.runFor(5 * MS);

        assertEquals(0, server.engine.serverRpcCount(), "the server freed the abandoned RPC");
        long handle = server.heldRequests.keySet().iterator().next();
        assertEquals(ErrorCode.CANCELLED, server.abandoned.get(handle).code(), "the handler was told");
        assertFalse(server.replyHeld(handle), "the late reply is refused");
        assertEquals(1, server.engine.metrics().deadHandleReplies(), "and counted");
    }

    @Test
    void anAbortedCallFreesTheServerRpc() {
        TestNet.Node server = net.node("server", HomaConfig.defaults());
        server.handler = (h, c, req) -> null;
        long id = client.call(server, 100, 2);
        net.runFor(5 * MS);
        assertEquals(1, server.engine.serverRpcCount());
        client.engine.abort(id, net.now());
        net.runFor(5 * MS);
        assertEquals(0, server.engine.serverRpcCount());
        assertEquals(1, server.abandoned.size());
    }

    @Test
    void aHandlerThatNeverRepliesIsAnsweredDeadlineExceededAndFreesItsSlot() {
        TestNet.Node server = net.node("server", HomaConfig.builder().maxServerRpcs(4).handlerTimeoutTicks(100)
                .build());
        int[] seen = {0};
        server.handler = (h, c, req) -> ++seen[0] <= 4 ? null : req; // the first four never reply
        long[] held = new long[4];
        for (int i = 0; i < held.length; i++) {
            held[i] = client.call(server, 100, 10 + i); // no deadline: only the server can end these
        }
        net.runFor(5 * MS);
        long later = client.call(server, 100, 20);
        net.runUntil(() -> client.done(later), 2_000 * MS);

        assertTrue(client.responses.containsKey(later), () -> "" + client.failures.get(later));
        for (long id : held) {
            RpcFailure f = client.failures.get(id);
            assertTrue(f != null && f.code() == ErrorCode.DEADLINE_EXCEEDED && !f.retrySafe(), "" + f);
        }
        assertTrue(server.engine.metrics().drops(DropReason.SERVER_RPC_LIMIT) > 0, "the table was full meanwhile");
        assertEquals(4, server.engine.metrics().handlerTimeouts());
        assertEquals(4, server.abandoned.size());
        server.abandoned.values().forEach(why -> assertEquals(ErrorCode.DEADLINE_EXCEEDED, why.code()));
        for (long handle : server.heldRequests.keySet().toArray(new Long[0])) {
            assertFalse(server.replyHeld(handle));
        }
        assertEquals(4, server.engine.metrics().deadHandleReplies());
    }
}
