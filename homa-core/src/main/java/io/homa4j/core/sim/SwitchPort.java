package io.homa4j.core.sim;

/**
 * The switch's egress port towards one host: 8 strict-priority FIFO queues (level 7 served first) sharing one
 * finite buffer, feeding the host's downlink. Transmission is not preemptive: a packet that has started leaves
 * whole before a higher-priority arrival goes next.
 *
 * <p>Occupancy counts every accepted packet until its last bit has left, the one being transmitted included.
 * Statistics are readable from the network's thread at any time.
 */
public final class SwitchPort {
    static final int LEVELS = 8;

    private final SimHost host;
    private final SimPacket[] heads = new SimPacket[LEVELS];
    private final SimPacket[] tails = new SimPacket[LEVELS];
    private final long[] levelBytes = new long[LEVELS];
    private final long[] maxLevelBytes = new long[LEVELS];
    /** Bit {@code level} set while that level's queue is non-empty: the dequeue finds the top level at once. */
    private int nonEmptyLevels;
    final TransmitDone transmitDone = new TransmitDone();
    /** Packets on the downlink, on their way to the host. */
    final LinkPipe downlink = new LinkPipe(true);
    SimPacket transmitting;
    private long bytes;
    private long packets;
    private long maxBytes;
    private long maxPackets;
    private long packetsTransmitted;
    private long bytesTransmitted;
    private long drops;

    SwitchPort(SimHost host) {
        this.host = host;
    }

    /** The host this port's downlink leads to. */
    public SimHost host() { return host; }

    /** Wire bytes held now (queued plus the one being transmitted). */
    public long queueBytes() { return bytes; }

    /** Most wire bytes ever held at once. */
    public long maxQueueBytes() { return maxBytes; }

    /** Most packets ever held at once. */
    public long maxQueuePackets() { return maxPackets; }

    /** Most wire bytes of priority {@code level} ever held at once (the one being transmitted included). */
    public long maxQueueBytes(int level) { return maxLevelBytes[level]; }

    /** Wire bytes of priority {@code level} held now. */
    public long queueBytes(int level) { return levelBytes[level]; }

    /** Packets sent down the link so far. */
    public long packetsTransmitted() { return packetsTransmitted; }

    /** Wire bytes sent down the link so far. */
    public long bytesTransmitted() { return bytesTransmitted; }

    /** Packets dropped at this port because its buffer (or the shared buffer) was full. */
    public long drops() { return drops; }

    /** Clears the maxima, so a test can measure one phase. */
    public void resetMaxima() {
        maxBytes = bytes;
        maxPackets = packets;
        System.arraycopy(levelBytes, 0, maxLevelBytes, 0, LEVELS);
    }

    boolean fits(int wireBytes, long limitBytes, long limitPackets) {
        return bytes + wireBytes <= limitBytes && packets + 1 <= limitPackets;
    }

    void countDrop() {
        drops++;
    }

    /** Takes the packet into the buffer; the caller starts transmission when the port is idle. */
    void accept(SimPacket packet) {
        int level = packet.priorityLevel;
        bytes += packet.wireBytes;
        packets++;
        levelBytes[level] += packet.wireBytes;
        if (bytes > maxBytes) {
            maxBytes = bytes;
        }
        if (packets > maxPackets) {
            maxPackets = packets;
        }
        if (levelBytes[level] > maxLevelBytes[level]) {
            maxLevelBytes[level] = levelBytes[level];
        }
    }

    void enqueue(SimPacket packet) {
        int level = packet.priorityLevel;
        packet.next = null;
        if (tails[level] == null) {
            heads[level] = packet;
            nonEmptyLevels |= 1 << level;
        } else {
            tails[level].next = packet;
        }
        tails[level] = packet;
    }

    /** Removes the head of the highest non-empty level, or returns null. */
    SimPacket dequeue() {
        if (nonEmptyLevels == 0) {
            return null;
        }
        int level = 31 - Integer.numberOfLeadingZeros(nonEmptyLevels);
        SimPacket head = heads[level];
        heads[level] = head.next;
        if (head.next == null) {
            tails[level] = null;
            nonEmptyLevels &= ~(1 << level);
        }
        head.next = null;
        return head;
    }

    /** The transmitted packet's last bit has left: it no longer occupies the buffer. */
    void release(SimPacket packet) {
        bytes -= packet.wireBytes;
        packets--;
        levelBytes[packet.priorityLevel] -= packet.wireBytes;
        packetsTransmitted++;
        bytesTransmitted += packet.wireBytes;
    }

    /**
     * Fires when the downlink finishes serializing {@link #transmitting}; in place (see
     * {@link SimEvent#firesInPlace}): the next packet's start reschedules it, an idle port takes it out.
     */
    final class TransmitDone extends SimEvent {
        TransmitDone() {
            super(true);
        }

        @Override
        void fire(SimulatedNetwork network) {
            network.transmitDone(SwitchPort.this);
        }
    }
}
