package io.homa4j.core.sim;

import io.netty.buffer.ByteBuf;

/**
 * One packet in flight, and its own event: first "reaches the switch", then "reaches the destination host".
 * Pooled by {@link SimulatedNetwork}; linked into a {@link SwitchPort} queue through {@link #next} while queued.
 */
final class SimPacket extends SimEvent {
    static final byte TO_SWITCH = 0;
    static final byte TO_HOST = 1;

    ByteBuf payload;
    SimHost source;
    SimHost destination;
    int priorityLevel;
    int wireBytes;
    byte stage;
    SimPacket next;

    @Override
    void fire(SimulatedNetwork network) {
        if (stage == TO_SWITCH) {
            network.reachSwitch(this);
        } else {
            network.reachHost(this);
        }
    }

    void clear() {
        payload = null;
        source = null;
        destination = null;
        next = null;
    }
}
