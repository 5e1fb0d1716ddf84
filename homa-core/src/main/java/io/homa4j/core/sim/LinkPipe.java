package io.homa4j.core.sim;

/**
 * Packets travelling down one link in FIFO order (a NIC's uplink to the switch, or a port's downlink to its
 * host). Their arrival times never decrease, so only the head needs to be in the event queue: this keeps the queue
 * at a few entries per host however many packets are in flight, which is what makes the event loop fast.
 */
final class LinkPipe extends SimEvent {
    private final boolean towardsHost;
    private SimPacket head;
    private SimPacket tail;

    LinkPipe(boolean towardsHost) {
        super(true);
        this.towardsHost = towardsHost;
    }

    /** Appends {@code packet} arriving at {@code arrivalPicos}, no earlier than the packet before it. */
    void add(SimPacket packet, long arrivalPicos, EventQueue events) {
        packet.arrivalPicos = arrivalPicos;
        packet.next = null;
        if (tail == null) {
            head = packet;
            tail = packet;
            events.schedule(this, arrivalPicos);
        } else {
            tail.next = packet;
            tail = packet;
        }
    }

    /** Fires in place (see {@link SimEvent#firesInPlace}): moves on to the next packet's arrival, or leaves. */
    @Override
    void fire(SimulatedNetwork network) {
        SimPacket packet = head;
        head = packet.next;
        packet.next = null;
        if (head == null) {
            tail = null;
            network.events().cancel(this);
        } else {
            network.events().schedule(this, head.arrivalPicos);
        }
        if (towardsHost) {
            network.reachHost(packet);
        } else {
            network.reachSwitch(packet);
        }
    }

    /** Removes and returns the first packet, or null (used when the network closes). */
    SimPacket pollPacket() {
        SimPacket packet = head;
        if (packet != null) {
            head = packet.next;
            packet.next = null;
            if (head == null) {
                tail = null;
            }
        }
        return packet;
    }
}
