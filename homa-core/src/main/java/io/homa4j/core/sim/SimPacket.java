package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * One packet in flight. It travels in a {@link LinkPipe} (linked through {@link #next}) or waits in a
 * {@link SwitchPort} queue (same link); only a packet held back by a reordering fault is an event of its own
 * (it would break the pipe's FIFO order), firing when it reaches the switch. Pooled by {@link SimulatedNetwork}.
 */
final class SimPacket extends SimEvent {
    ByteBuf payload;
    SimHost source;
    SimHost destination;
    int priorityLevel;
    int wireBytes;
    long arrivalPicos;
    /** The claimed source of a packet injected from outside the hosts ({@code source} is then null). */
    InetSocketAddress injectedFrom;
    SimPacket next;

    /**
     * Only for reordered packets, which reach the switch outside their uplink's pipe, and injected ones, which
     * reach their host directly.
     */
    @Override
    void fire(SimulatedNetwork network) {
        if (injectedFrom != null) {
            network.reachHost(this);
        } else {
            network.reachSwitch(this);
        }
    }

    /** The address the destination sees as the sender. */
    InetSocketAddress sourceAddress() {
        return source != null ? source.address() : injectedFrom;
    }

    void clear() {
        payload = null;
        source = null;
        destination = null;
        injectedFrom = null;
        next = null;
    }
}
