package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcListener;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.peer.PeerTable;
import io.homa4j.core.internal.timer.SilenceRules;
import io.homa4j.core.internal.timer.TickClock;
import io.netty.buffer.ByteBufAllocator;

/**
 * What the client and the server half of an engine both work with: the owners of the shared state (each changes
 * its own state through its methods) and the engine's configuration, listener and counters. The halves keep
 * their own RPCs. Engine thread only.
 */
public abstract class RpcHalf {
    final HomaConfig config;
    final RpcListener listener;
    /** Where error payloads and empty messages are allocated (a message's own buffer otherwise). */
    final ByteBufAllocator allocator;
    final Metrics metrics;
    final EngineClock clock;
    final PacketVerdict verdict;
    final PeerTable peers;
    final Receiver receiver;
    final Outbound outbound;
    final ControlSender control;
    final TickClock tickClock;
    final SilenceRules silenceRules;

    /** The collaborators {@code HomaEngine} builds once and hands to both halves. */
    public record Parts(HomaConfig config, RpcListener listener, ByteBufAllocator allocator, Metrics metrics,
                        EngineClock clock, PacketVerdict verdict, PeerTable peers, Receiver receiver,
                        Outbound outbound, ControlSender control, TickClock tickClock, SilenceRules silenceRules) {
    }

    RpcHalf(Parts parts) {
        this.config = parts.config();
        this.listener = parts.listener();
        this.allocator = parts.allocator();
        this.metrics = parts.metrics();
        this.clock = parts.clock();
        this.verdict = parts.verdict();
        this.peers = parts.peers();
        this.receiver = parts.receiver();
        this.outbound = parts.outbound();
        this.control = parts.control();
        this.tickClock = parts.tickClock();
        this.silenceRules = parts.silenceRules();
    }
}
