package io.homa4j.core;

import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * The protocol engine as its host drives it: {@link PacketDriven} plus the application's calls. {@link HomaEngine}
 * is the engine; the interface lets a host (the endpoint's event loop, a simulated host) be tested against a
 * scripted engine. Threading and ownership: those of {@link HomaEngine}, whose methods document each rule.
 */
public interface Engine extends PacketDriven {

    /** Starts an RPC; see {@link HomaEngine#call}. */
    long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos);

    /** Answers a request; see {@link HomaEngine#reply}. */
    boolean reply(long serverHandle, ByteBuf response, long nowNanos);

    /** Answers a request with an error; see {@link HomaEngine#replyError}. */
    boolean replyError(long serverHandle, String message, long nowNanos);

    /** Ends a client RPC; see {@link HomaEngine#abort}. */
    void abort(long rpcId, long nowNanos);

    /**
     * Whether a packet from {@code peer} arrived at or after {@code sinceNanos}; see
     * {@link HomaEngine#peerHeardSince}. Test doubles say true, so their host never probes their peers.
     */
    default boolean peerHeardSince(InetSocketAddress peer, long sinceNanos) {
        return true;
    }

    /** RPCs alive with {@code peer}; see {@link HomaEngine#peerRpcCount}. */
    default int peerRpcCount(InetSocketAddress peer) {
        return 0;
    }

    /** Nothing listens at {@code server}: fails its calls; see {@link HomaEngine#peerUnreachable}. */
    default int peerUnreachable(InetSocketAddress server, long probeSentNanos, long nowNanos) {
        return 0;
    }

    /** The engine's counters and gauges now; null for engines that keep none (test doubles). */
    MetricsSnapshot metrics();
}
