package io.homa4j.core;

import io.homa4j.core.wire.PacketType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an engine leaves behind between calls on a quiet host: no timer once no RPC is left. Virtual time. */
class QuietEngineTest {
    private static final long MS = 1_000_000;
    private final TestNet net = new TestNet();
    private final HomaConfig config = HomaConfig.defaults();
    private final TestNet.Node client = net.node("client", config);
    private final TestNet.Node server = net.node("server", config);

    @AfterEach
    void close() {
        net.close();
    }

    @Test
    void theTickStopsAsSoonAsTheLastRpcIsFreed() {
        long id = client.call(server, 100, 1);
        assertTrue(client.engine.awaitingPeer(), "the call waits for its response");
        assertTrue(client.engine.nextWakeNanos() < Long.MAX_VALUE, "a call in flight is watched by the tick");
        net.runUntil(() -> client.done(id), 10 * MS);

        assertFalse(client.engine.awaitingPeer());
        assertEquals(0, client.engine.clientRpcCount());
        assertEquals(Long.MAX_VALUE, client.engine.nextWakeNanos(), "no RPC left: no tick to wake for");
        assertEquals(Long.MAX_VALUE, client.engine.wakeByNanos());
        assertEquals(1, server.engine.serverRpcCount(), "the server keeps the response until acknowledged");
        assertTrue(server.engine.nextWakeNanos() < Long.MAX_VALUE);

        net.runUntil(() -> server.engine.serverRpcCount() == 0, loneAckWaitNanos());
        assertEquals(Long.MAX_VALUE, server.engine.nextWakeNanos(), "freed by the ack: the server's tick stops too");
        assertEquals(Long.MAX_VALUE, server.engine.wakeByNanos());
    }

    @Test
    void aCallAfterAnIdleGapCountsItsSilenceFromItsOwnStart() {
        long first = client.call(server, 100, 1);
        net.runUntil(() -> client.done(first), 10 * MS);
        net.runUntil(() -> server.engine.serverRpcCount() == 0, loneAckWaitNanos());
        net.runFor(50 * MS); // the idle gap

        long startedAt = net.now();
        server.handler = (h, c, req) -> null; // the server holds this one: the client's timer must run
        client.call(server, 100, 2);
        long firstTick = client.engine.nextWakeNanos();
        assertEquals(startedAt + config.tickNanos(), firstTick, "a fresh tick grid, not one left from before the gap");
        assertEquals(0, net.sent(PacketType.RESEND).size());
    }

    @Test
    void aServerWhoseClientVanishedWakesForItsProbesAndTheAbortNotForEveryTick() {
        long id = client.call(server, 100, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        long responseAt = net.now();
        net.dropRule = s -> s.to().equals(server.address); // the client is gone: nothing reaches the server
        long pollsBefore = server.host.polls();

        net.runUntil(() -> server.engine.serverRpcCount() == 0, (config.abortTicks() + 10) * config.tickNanos());

        assertEquals(1, server.engine.metrics().serverExpired(), "given up after the abort timeout");
        long expiredAfterTicks = (net.now() - responseAt) / config.tickNanos();
        assertTrue(expiredAfterTicks >= config.abortTicks() - 1 && expiredAfterTicks <= config.abortTicks() + 2,
                "the silence is counted as with a tick every tickNanos: expired after " + expiredAfterTicks);
        assertEquals(2, net.sent(PacketType.NEED_ACK).size(), "both probes an unproven client gets");
        long polls = server.host.polls() - pollsBefore;
        assertTrue(polls <= 10, "woken for the probes and the abort, not for each of "
                + config.abortTicks() + " ticks: " + polls + " polls");
    }

    @Test
    void aRequestWhileTheServerSleepsThroughTicksIsWatchedFromTheNextTick() {
        TestNet.Node other = net.node("other", config);
        long first = client.call(server, 100, 1);
        net.runUntil(() -> client.done(first), 10 * MS);
        net.dropRule = s -> s.from().equals(client.address); // this client answers no NEED_ACK
        net.runUntil(() -> net.sent(PacketType.NEED_ACK).size() == 2, 100 * MS);
        assertTrue(server.engine.nextWakeNanos() > net.now() + 10 * config.tickNanos(),
                "only the unanswered response is left: the next tick is its abort, far ahead");

        server.handler = (h, c, req) -> null; // holds the new request, so its RPC needs the tick
        other.call(server, 100, 2);
        net.runUntil(() -> server.engine.serverRpcCount() == 2, 10 * MS);
        assertTrue(server.engine.nextWakeNanos() <= net.now() + config.tickNanos(),
                "a new RPC is watched every tick again");
    }

    @Test
    void aLoneResponseWaitingForItsAckWakesTheServerForItsNeedAckOnly() {
        long startedAt = net.now();
        long id = client.call(server, 100, 1);
        net.runUntil(() -> client.done(id), 10 * MS);
        assertEquals(1, server.engine.serverRpcCount(), "the response waits for its ACK");
        long needAckDue = startedAt + config.loneNeedAckTicks() * config.tickNanos();
        assertTrue(server.engine.nextWakeNanos() >= needAckDue && server.engine.nextWakeNanos() <= needAckDue + MS,
                "the next tick is the NEED_ACK's, " + (server.engine.nextWakeNanos() - startedAt) / 1e6
                        + " ms after the call started");
        long pollsBefore = server.host.polls();

        net.runUntil(() -> server.engine.serverRpcCount() == 0, loneAckWaitNanos());

        assertEquals(1, net.sent(PacketType.NEED_ACK).size(), "asked for once, at the lone response's NEED_ACK");
        assertEquals(1, server.host.polls() - pollsBefore, "one wake-up: the NEED_ACK's tick, none before it");
    }

    @Test
    void aClientThatCallsAgainWithinTheLoneWaitIsNeverAskedForAnAck() {
        for (int i = 0; i < 5; i++) {
            long id = client.call(server, 100, i);
            net.runUntil(() -> client.done(id), 10 * MS);
            long polls = server.host.polls();
            net.runFor(10 * MS); // the next call 10 ms later: far beyond needAckTicks, within loneNeedAckTicks
            assertEquals(polls, server.host.polls(), "the server sleeps through the gap");
        }
        assertEquals(0, net.sent(PacketType.NEED_ACK).size(), "every ACK rode on the next request");
        assertEquals(0, net.sent(PacketType.ACK).size());
    }

    @Test
    void aResponseBesideAnotherRpcIsAskedForAfterNeedAckTicks() {
        TestNet.Node other = net.node("other", config);
        server.handler = (h, c, req) -> c.equals(other.address) ? null : req; // holds the other client's request
        other.call(server, 100, 1);
        net.runUntil(() -> server.engine.serverRpcCount() == 1, 10 * MS);
        long startedAt = net.now();
        long id = client.call(server, 100, 2);
        net.runUntil(() -> client.done(id), 10 * MS);
        net.dropRule = s -> s.from().equals(client.address); // the NEED_ACK goes unanswered, so it is seen once

        net.runFor(startedAt + (config.needAckTicks() + 2) * config.tickNanos() - net.now());

        assertEquals(1, net.sent(PacketType.NEED_ACK).size(),
                "not the only RPC: asked for after needAckTicks, as on a busy server");
    }

    @Test
    void aResponseSentWhileTheTickIsStretchedCountsOnlyItsOwnSilence() {
        long firstAt = net.now();
        long first = client.call(server, 100, 1);
        net.runUntil(() -> client.done(first), 10 * MS);
        net.runFor(firstAt + 10 * MS - net.now()); // the tick is stretched towards the first's NEED_ACK
        long startedAt = net.now();
        long second = client.call(server, 100, 2); // acknowledges the first on its way
        net.runUntil(() -> client.done(second), 10 * MS);
        assertEquals(1, server.engine.serverRpcCount(), "only the second response is left");

        net.runFor(startedAt + config.loneNeedAckTicks() * config.tickNanos() - MS / 2 - net.now());
        assertEquals(0, net.sent(PacketType.NEED_ACK).size(),
                "the second response has not been silent for loneNeedAckTicks yet");
        net.runUntil(() -> server.engine.serverRpcCount() == 0, loneAckWaitNanos());
        assertEquals(1, net.sent(PacketType.NEED_ACK).size(), "then asked for, once");
    }

    /** Long enough for a lone response's NEED_ACK and its ACK. */
    private long loneAckWaitNanos() {
        return (config.loneNeedAckTicks() + 5) * config.tickNanos();
    }
}
