package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

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
    SimPacket next;

    /** Only for reordered packets: they reach the switch outside their uplink's pipe. */
    @Override
    void fire(SimulatedNetwork network) {
        network.reachSwitch(this);
    }

    void clear() {
        payload = null;
        source = null;
        destination = null;
        next = null;
    }
}
