package io.homa4j.core.sim;

import io.homa4j.core.PacketDriven;
import io.homa4j.core.PacketSink;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * One simulated host: its address, its NIC (a FIFO in front of the uplink, unbounded, so a node that sends faster
 * than the link builds a queue here rather than losing packets) and the {@link PacketDriven} that runs on it.
 *
 * <p>Threading: use only from the thread that runs the network.
 */
public final class SimHost {
    private final SimulatedNetwork network;
    private final int index;
    private final InetSocketAddress address;
    private final Sink sink = new Sink();
    final WakeEvent wakeEvent = new WakeEvent();
    final SwitchPort port;
    /** Packets serialized onto the uplink, on their way to the switch. */
    final LinkPipe uplink = new LinkPipe(false);
    private PacketDriven node;
    private boolean down;
    /** When the uplink finishes serializing everything handed to the NIC so far, in picoseconds. */
    long nicBusyUntilPicos;
    long lastPollPicos = -1;
    private long maxNicBacklogPicos;
    private long packetsSent;
    private long bytesSent;
    private long packetsReceived;
    private long bytesReceived;
    private long polls;

    SimHost(SimulatedNetwork network, int index, InetSocketAddress address) {
        this.network = network;
        this.index = index;
        this.address = address;
        this.port = new SwitchPort(this);
    }

    /** Position of this host in the network, 0-based. */
    public int index() { return index; }

    /** The host's address (198.18.x.y, the network's UDP port). */
    public InetSocketAddress address() { return address; }

    /** The network this host belongs to. */
    public SimulatedNetwork network() { return network; }

    /** Where the node hands its packets; ownership of each packet passes to the network. */
    public PacketSink sink() { return sink; }

    /** The switch's egress port towards this host: its queue statistics. */
    public SwitchPort port() { return port; }

    /** The node running here, or null. */
    public PacketDriven node() { return node; }

    /** The network's virtual time. */
    public long nowNanos() { return network.nowNanos(); }

    /**
     * Puts {@code newNode} on this host (replacing any previous one, which is not closed) and brings the host up.
     * The network reads the node's wake time at once.
     */
    public void attach(PacketDriven newNode) {
        this.node = newNode;
        this.down = false;
        this.lastPollPicos = -1;
        wakeChanged();
    }

    /**
     * Takes the host down or up. While down, packets that reach the host are dropped ({@link NetworkDropReason#HOST_DOWN})
     * and the node is not polled; packets already in the NIC still leave.
     */
    public void setDown(boolean isDown) {
        this.down = isDown;
        wakeChanged();
    }

    /** Whether packets reaching this host are dropped. */
    public boolean isDown() { return down || node == null; }

    /**
     * Tells the network the node's {@link PacketDriven#nextWakeNanos()} may have changed because of something other
     * than a call from the network (an API call made by a test or a scheduled task).
     */
    public void wakeChanged() {
        network.refreshWake(this);
    }

    /** Packets this host's node sent. */
    public long packetsSent() { return packetsSent; }

    /** UDP payload bytes this host's node sent. */
    public long bytesSent() { return bytesSent; }

    /** Packets delivered to this host's node. */
    public long packetsReceived() { return packetsReceived; }

    /** UDP payload bytes delivered to this host's node. */
    public long bytesReceived() { return bytesReceived; }

    /** Times the network called the node's poll. */
    public long polls() { return polls; }

    /** Longest the NIC queue has been, as time to drain it at the link rate, in nanoseconds. */
    public long maxNicBacklogNanos() { return maxNicBacklogPicos / 1_000; }

    /** Longest the NIC queue has been, in wire bytes (derived from the backlog time at the link rate). */
    public long maxNicBacklogBytes() { return network.bytesForPicos(maxNicBacklogPicos); }

    @Override
    public String toString() {
        return "host" + index + "(" + address.getAddress().getHostAddress() + ")";
    }

    void countSent(int payloadBytes, long backlogPicos) {
        packetsSent++;
        bytesSent += payloadBytes;
        if (backlogPicos > maxNicBacklogPicos) {
            maxNicBacklogPicos = backlogPicos;
        }
    }

    void countReceived(int payloadBytes) {
        packetsReceived++;
        bytesReceived += payloadBytes;
    }

    void countPoll() {
        polls++;
    }

    private final class Sink implements PacketSink {
        @Override
        public void send(InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
            network.send(SimHost.this, peer, priorityLevel, packet);
        }
    }

    /** Fires when the node asked to be polled. */
    final class WakeEvent extends SimEvent {
        @Override
        void fire(SimulatedNetwork net) {
            net.wake(SimHost.this);
        }
    }
}
