package io.homa4j.core.sim;

import io.homa4j.core.PacketDriven;
import io.netty.buffer.ByteBuf;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * A discrete-event, virtual-time network of {@link SimHost}s around one switch (see {@link NetworkConfig} for the
 * shape), driving one {@link PacketDriven} per host: packets reach nodes at their virtual arrival time and nodes are
 * polled at the time they ask for, all on one virtual clock.
 *
 * <p>A packet's path: the sender's NIC serializes it onto the uplink (FIFO behind earlier packets), it propagates
 * to the switch, waits {@code switchLatency}, is accepted by the destination's egress port if its buffer has room
 * (else dropped), waits in that port's queue for its priority level (strict priority, 7 first), is serialized onto
 * the downlink and propagates to the destination host. Serialization takes
 * {@code ceil((payload + wireOverhead) * 8 / rate)}, computed in picoseconds; nodes see time in whole nanoseconds
 * (rounded down).
 *
 * <p>Determinism: events fire in order of (time, order of scheduling), and all faults come from one
 * {@link SplittableRandom} seeded by {@link NetworkConfig#seed()}, drawn in event order, so one seed gives one
 * result.
 *
 * <p>Ownership: the network owns every packet handed to a host's sink until it hands it to the destination node
 * (which releases it) or drops it (the network releases it). {@link #close()} closes every node and releases what
 * is still in flight.
 *
 * <p>Threading: not thread-safe; one thread creates, runs and inspects the network and everything on it.
 *
 * <p>This class is the packet path and the event loop; link timing is {@code LinkTiming}'s, the event order
 * {@code EventQueue}'s, and each switch output port's queues are {@link SwitchPort}'s.
 */
public final class SimulatedNetwork implements AutoCloseable {
    private static final long PICOS_PER_NANO = LinkTiming.PICOS_PER_NANO;

    private final NetworkConfig config;
    private final SimHost[] hosts;
    private final Map<InetSocketAddress, SimHost> hostsByAddress;
    private final EventQueue events = new EventQueue();
    private final SplittableRandom random;
    private final LinkTiming timing;
    private final long propagationPicos;
    private final long switchLatencyPicos;
    private final long reorderMaxDelayPicos;
    private final int wireOverheadBytes;
    private final long[] drops = new long[NetworkDropReason.values().length];
    private long nowPicos;
    private boolean closed;
    private SimPacket freePackets;
    private PacketTap tap;
    private PacketFilter filter;
    private long sharedBufferBytes;
    private long maxSharedBufferBytes;
    private long packetsSent;
    private long packetsDelivered;
    private long bytesDelivered;
    private long duplicatesInjected;
    private long packetsReordered;
    private long eventsProcessed;

    public SimulatedNetwork(NetworkConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.random = new SplittableRandom(config.seed());
        this.timing = new LinkTiming(config.linkBitsPerSecond());
        this.propagationPicos = config.propagationDelayNanos() * PICOS_PER_NANO;
        this.switchLatencyPicos = config.switchLatencyNanos() * PICOS_PER_NANO;
        this.reorderMaxDelayPicos = config.reorderMaxDelayNanos() * PICOS_PER_NANO;
        this.wireOverheadBytes = config.wireOverheadBytes();
        this.hosts = new SimHost[config.hosts()];
        this.hostsByAddress = new HashMap<>(config.hosts() * 2);
        for (int i = 0; i < hosts.length; i++) {
            SimHost host = new SimHost(this, i, hostAddress(i, config.udpPort()));
            hosts[i] = host;
            hostsByAddress.put(host.address(), host);
        }
    }

    /**
     * The address of host {@code index}: 198.18.0.1 for host 0, 198.18.0.2 for host 1, ... (198.18.1.0 for host
     * 255), a range reserved for benchmarking (RFC 2544), built without DNS.
     */
    public static InetSocketAddress hostAddress(int index, int udpPort) {
        int n = index + 1;
        if (index < 0 || n > 65_534) {
            throw new IllegalArgumentException("host index out of range: " + index);
        }
        try {
            byte[] ip = {(byte) 198, (byte) 18, (byte) (n >>> 8), (byte) n};
            return new InetSocketAddress(InetAddress.getByAddress(ip), udpPort);
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4-byte address is always valid", e);
        }
    }

    public NetworkConfig config() { return config; }

    /** Number of hosts. */
    public int hostCount() { return hosts.length; }

    public SimHost host(int index) { return hosts[index]; }

    /** The host with {@code address}, or null. */
    public SimHost host(InetSocketAddress address) { return hostFor(address); }

    /** Per-packet lookup: the host index is in the address; the map is only a fallback. */
    private SimHost hostFor(InetSocketAddress peer) {
        InetAddress ip = peer.getAddress();
        if (ip instanceof Inet4Address) {
            int index = (ip.hashCode() & 0xFFFF) - 1; // Inet4Address hashes to its address; verified below
            if (index >= 0 && index < hosts.length) {
                SimHost host = hosts[index];
                // Nodes mostly send to the very address object a packet came from (the host's own): then one
                // compare, not the port and the address's holder read and compared.
                if (host.address() == peer
                        || peer.getPort() == config.udpPort() && host.address().getAddress().equals(ip)) {
                    return host;
                }
            }
        }
        return hostsByAddress.get(peer);
    }

    /** Virtual time, nanoseconds since the network was created. */
    public long nowNanos() { return nowPicos / PICOS_PER_NANO; }

    /** Virtual time in picoseconds (the resolution of link timing). */
    public long nowPicos() { return nowPicos; }

    /** Serialization time of one packet with {@code payloadBytes} of UDP payload on any link, in picoseconds. */
    public long serializationPicos(int payloadBytes) {
        return timing.wirePicos(payloadBytes + wireOverheadBytes);
    }

    /** Installs (or, with null, removes) the packet observer. */
    public void tap(PacketTap newTap) { this.tap = newTap; }

    /** Installs (or, with null, removes) the hand-picked packet drops. */
    public void filter(PacketFilter newFilter) { this.filter = newFilter; }

    // ---------------------------------------------------------------- running

    /** Runs every event up to and including {@code deadlineNanos}, then sets the clock there. */
    public void runUntil(long deadlineNanos) {
        checkOpen();
        long limit = LinkTiming.toPicos(deadlineNanos);
        // The queue finds its first event once per event here, not once to peek and again to fire.
        while (!events.isEmpty()) {
            SimEvent event = events.first();
            if (event.timePicos > limit) {
                break;
            }
            fire(event);
        }
        if (limit > nowPicos) {
            nowPicos = limit;
        }
    }

    /** Runs for {@code nanos} of virtual time. */
    public void runFor(long nanos) {
        runUntil(Math.addExact(nowNanos(), nanos));
    }

    /**
     * Runs events until {@code condition} holds (checked before each event) or {@code timeoutNanos} of virtual
     * time have passed; returns whether the condition holds. Keep the condition cheap: it runs once per event.
     */
    public boolean runUntil(BooleanSupplier condition, long timeoutNanos) {
        checkOpen();
        long limit = LinkTiming.toPicos(Math.addExact(nowNanos(), timeoutNanos));
        while (!condition.getAsBoolean()) {
            if (events.isEmpty() || events.peekTimePicos() > limit) {
                if (limit > nowPicos) {
                    nowPicos = limit;
                }
                return condition.getAsBoolean();
            }
            step();
        }
        return true;
    }

    /**
     * Runs until no event is pending (no packet in flight, no node wants a poll, no task scheduled) or
     * {@code timeoutNanos} of virtual time have passed; returns whether the network went idle.
     */
    public boolean runUntilIdle(long timeoutNanos) {
        return runUntil(events::isEmpty, timeoutNanos);
    }

    /** Runs {@code task} at virtual time {@code atNanos} (not in the past), after events already due then. */
    public void schedule(long atNanos, Runnable task) {
        checkOpen();
        Objects.requireNonNull(task, "task");
        long at = LinkTiming.toPicos(atNanos);
        if (at < nowPicos - nowPicos % PICOS_PER_NANO) {
            throw new IllegalArgumentException("cannot schedule in the past: " + atNanos + " < " + nowNanos());
        }
        events.schedule(new TaskEvent(task), Math.max(at, nowPicos));
    }

    /** Runs {@code task} {@code delayNanos} from now. */
    public void scheduleAfter(long delayNanos, Runnable task) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("negative delay: " + delayNanos);
        }
        schedule(Math.addExact(nowNanos(), delayNanos), task);
    }

    /** Events waiting to fire: packets in flight, pending polls, scheduled tasks, busy ports. */
    public int pendingEvents() { return events.size(); }

    /** Runs the next pending event, whenever it is due; false (and nothing happens) when none is pending. */
    public boolean runNext() {
        checkOpen();
        if (events.isEmpty()) {
            return false;
        }
        step();
        return true;
    }

    private void step() {
        fire(events.first());
    }

    /** Fires {@code event}, the first in the queue. */
    private void fire(SimEvent event) {
        if (!event.firesInPlace) {
            events.cancel(event);
        }
        nowPicos = event.timePicos;
        eventsProcessed++;
        // The kinds that fire for every packet, by their (final) class: with five kinds the plain virtual call is
        // megamorphic, an indirect jump through the vtable per event; a class check is one compare and lets the
        // JIT bind (or inline) the handler.
        if (event instanceof LinkPipe pipe) {
            pipe.fire(this);
        } else if (event instanceof SwitchPort.TransmitDone transmitDone) {
            transmitDone.fire(this);
        } else if (event instanceof SimHost.WakeEvent wake) {
            wake.fire(this);
        } else {
            event.fire(this);
        }
    }

    // ---------------------------------------------------------------- statistics

    /** Packets dropped for {@code reason}. */
    public long drops(NetworkDropReason reason) { return drops[reason.ordinal()]; }

    /** Packets dropped for any reason. */
    public long totalDrops() {
        long sum = 0;
        for (long d : drops) {
            sum += d;
        }
        return sum;
    }

    /** Packets nodes handed to their sinks. */
    public long packetsSent() { return packetsSent; }

    /** Packets handed to destination nodes (injected duplicates included). */
    public long packetsDelivered() { return packetsDelivered; }

    /** UDP payload bytes handed to destination nodes. */
    public long bytesDelivered() { return bytesDelivered; }

    /** Extra copies made by duplication faults. */
    public long duplicatesInjected() { return duplicatesInjected; }

    /** Packets held back by reordering faults. */
    public long packetsReordered() { return packetsReordered; }

    /** Events fired so far (a measure of simulation work). */
    public long eventsProcessed() { return eventsProcessed; }

    /** Wire bytes held by all egress ports now. */
    public long sharedBufferBytes() { return sharedBufferBytes; }

    /** Most wire bytes all egress ports held at once. */
    public long maxSharedBufferBytes() { return maxSharedBufferBytes; }

    /** Largest {@link SwitchPort#maxQueueBytes()} over all ports. */
    public long maxPortQueueBytes() {
        long max = 0;
        for (SimHost h : hosts) {
            max = Math.max(max, h.port.maxQueueBytes());
        }
        return max;
    }

    // ---------------------------------------------------------------- the packet path

    void send(SimHost from, InetSocketAddress peer, int priorityLevel, ByteBuf packet) {
        packetsSent++;
        SimHost to = peer == null ? null : hostFor(peer);
        if (tap != null) {
            tap.sent(from, to, priorityLevel, packet, nowNanos());
        }
        if (closed) {
            dropBuffer(from, to, priorityLevel, packet, NetworkDropReason.NETWORK_CLOSED);
            return;
        }
        if (priorityLevel < 0 || priorityLevel >= SwitchPort.LEVELS) {
            dropBuffer(from, to, priorityLevel, packet, NetworkDropReason.INVALID_PRIORITY);
            return;
        }
        if (to == null) {
            dropBuffer(from, null, priorityLevel, packet, NetworkDropReason.UNKNOWN_DESTINATION);
            return;
        }
        int payloadBytes = packet.readableBytes();
        int wireBytes = payloadBytes + wireOverheadBytes;
        long start = Math.max(nowPicos, from.nicBusyUntilPicos);
        long end = start + timing.wirePicos(wireBytes);
        from.nicBusyUntilPicos = end;
        from.countSent(payloadBytes, end - nowPicos);
        if (config.lossProbability() > 0 && random.nextDouble() < config.lossProbability()) {
            dropBuffer(from, to, priorityLevel, packet, NetworkDropReason.RANDOM_LOSS);
            return;
        }
        boolean duplicate = config.duplicateProbability() > 0 && random.nextDouble() < config.duplicateProbability();
        long arrival = end + propagationPicos + switchLatencyPicos;
        if (config.reorderProbability() > 0 && random.nextDouble() < config.reorderProbability()) {
            arrival += 1 + random.nextLong(reorderMaxDelayPicos);
            packetsReordered++;
        }
        ByteBuf copy = duplicate ? packet.copy() : null;
        SimPacket original = packet(packet, from, to, priorityLevel, wireBytes);
        if (arrival == end + propagationPicos + switchLatencyPicos) {
            from.uplink.add(original, arrival, events);
        } else {
            original.arrivalPicos = arrival;
            events.schedule(original, arrival);
        }
        if (copy != null) {
            duplicatesInjected++;
            SimPacket twin = packet(copy, from, to, priorityLevel, wireBytes);
            if (original.isScheduled()) {
                twin.arrivalPicos = arrival;
                events.schedule(twin, arrival);
            } else {
                from.uplink.add(twin, arrival, events);
            }
        }
    }

    /**
     * Delivers {@code packet} to the node of {@code to} {@code delayNanos} from now, as sent by {@code from}: a
     * packet from outside the simulated hosts (forged, replayed, or a copy a test makes). It skips the links, the
     * switch, random faults and the filter; the tap sees its delivery with a null source host. It is dropped
     * ({@link NetworkDropReason#HOST_DOWN}) if {@code to} is down when it arrives. Ownership of {@code packet}
     * passes to the network.
     */
    public void inject(InetSocketAddress from, SimHost to, ByteBuf packet, long delayNanos) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (closed || delayNanos < 0) {
            packet.release();
            checkOpen();
            throw new IllegalArgumentException("negative delay: " + delayNanos);
        }
        SimPacket p = packet(packet, null, to, 0, packet.readableBytes() + wireOverheadBytes);
        p.injectedFrom = from;
        long at = nowPicos + LinkTiming.toPicos(delayNanos);
        p.arrivalPicos = at;
        events.schedule(p, at);
    }

    void reachSwitch(SimPacket packet) {
        if (filter != null
                && filter.drop(packet.source, packet.destination, packet.priorityLevel, packet.payload, nowNanos())) {
            dropPacket(packet, NetworkDropReason.FILTERED);
            return;
        }
        SwitchPort port = packet.destination.port;
        if (!port.fits(packet.wireBytes, config.portBufferBytes(), config.portBufferPackets())) {
            port.countDrop();
            dropPacket(packet, NetworkDropReason.PORT_BUFFER_FULL);
            return;
        }
        if (sharedBufferBytes + packet.wireBytes > config.sharedBufferBytes()) {
            port.countDrop();
            dropPacket(packet, NetworkDropReason.SHARED_BUFFER_FULL);
            return;
        }
        port.accept(packet);
        sharedBufferBytes += packet.wireBytes;
        if (sharedBufferBytes > maxSharedBufferBytes) {
            maxSharedBufferBytes = sharedBufferBytes;
        }
        if (port.transmitting == null) {
            startTransmit(port, packet);
        } else {
            port.enqueue(packet);
        }
    }

    private void startTransmit(SwitchPort port, SimPacket packet) {
        port.transmitting = packet;
        long done = nowPicos + timing.wirePicos(packet.wireBytes);
        // Scheduled first, so with zero propagation the port frees before the packet is delivered.
        events.schedule(port.transmitDone, done);
        port.downlink.add(packet, done + propagationPicos, events);
    }

    void transmitDone(SwitchPort port) {
        SimPacket done = port.transmitting;
        port.release(done);
        sharedBufferBytes -= done.wireBytes;
        port.transmitting = null;
        SimPacket next = port.dequeue();
        if (next != null) {
            startTransmit(port, next); // reschedules transmitDone, which fired in place
        } else {
            events.cancel(port.transmitDone);
        }
    }

    void reachHost(SimPacket packet) {
        SimHost to = packet.destination;
        if (to.isDown()) {
            dropPacket(packet, NetworkDropReason.HOST_DOWN);
            return;
        }
        ByteBuf payload = packet.payload;
        if (tap != null) {
            tap.delivered(packet.source, to, packet.priorityLevel, payload, nowNanos());
        }
        int bytes = payload.readableBytes();
        to.countReceived(bytes);
        packetsDelivered++;
        bytesDelivered += bytes;
        InetSocketAddress from = packet.sourceAddress();
        recycle(packet);
        to.node().onPacket(from, payload, nowNanos());
        refreshWake(to);
    }

    void wake(SimHost host) {
        if (host.isDown()) {
            return;
        }
        host.lastPollPicos = nowPicos;
        host.countPoll();
        host.node().poll(nowNanos());
        refreshWake(host);
    }

    void refreshWake(SimHost host) {
        SimEvent wake = host.wakeEvent;
        if (closed || host.isDown()) {
            events.cancel(wake);
            return;
        }
        long wantNanos = host.node().nextWakeNanos();
        if (wantNanos == Long.MAX_VALUE || wantNanos > Long.MAX_VALUE / PICOS_PER_NANO) {
            events.cancel(wake);
            return;
        }
        long at = Math.max(wantNanos * PICOS_PER_NANO, nowPicos);
        if (at <= host.lastPollPicos) {
            // A node still due right after being polled is polled again one nanosecond later, not in a loop.
            at = host.lastPollPicos + PICOS_PER_NANO;
        }
        if (wake.isScheduled() && wake.timePicos == at) {
            return;
        }
        events.schedule(wake, at);
    }

    // ---------------------------------------------------------------- closing

    /**
     * Closes every node (see {@link PacketDriven#close}), then releases every packet still in flight or queued
     * (counted as {@link NetworkDropReason#NETWORK_CLOSED}). The network cannot run afterwards. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (SimHost host : hosts) {
            PacketDriven node = host.node();
            if (node != null) {
                node.close(nowNanos());
            }
            events.cancel(host.wakeEvent);
        }
        for (SimEvent event = events.poll(); event != null; event = events.poll()) {
            if (event instanceof SimPacket) {
                dropPacket((SimPacket) event, NetworkDropReason.NETWORK_CLOSED);
            }
        }
        for (SimHost host : hosts) {
            SwitchPort port = host.port;
            port.transmitting = null; // also in the downlink pipe
            dropAll(host.uplink);
            dropAll(port.downlink);
            for (SimPacket queued = port.dequeue(); queued != null; queued = port.dequeue()) {
                dropPacket(queued, NetworkDropReason.NETWORK_CLOSED);
            }
        }
    }

    public boolean isClosed() { return closed; }

    private void dropAll(LinkPipe pipe) {
        for (SimPacket p = pipe.pollPacket(); p != null; p = pipe.pollPacket()) {
            dropPacket(p, NetworkDropReason.NETWORK_CLOSED);
        }
    }

    // ---------------------------------------------------------------- helpers

    EventQueue events() {
        return events;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("network closed");
        }
    }

    long bytesForPicos(long picos) {
        return timing.bytesForPicos(picos);
    }

    private SimPacket packet(ByteBuf payload, SimHost from, SimHost to, int level, int wireBytes) {
        SimPacket p = freePackets;
        if (p == null) {
            p = new SimPacket();
        } else {
            freePackets = p.next;
            p.next = null;
        }
        p.payload = payload;
        p.source = from;
        p.destination = to;
        p.priorityLevel = level;
        p.wireBytes = wireBytes;
        return p;
    }

    private void recycle(SimPacket packet) {
        packet.clear();
        packet.next = freePackets;
        freePackets = packet;
    }

    private void dropPacket(SimPacket packet, NetworkDropReason reason) {
        ByteBuf payload = packet.payload;
        SimHost from = packet.source;
        SimHost to = packet.destination;
        int level = packet.priorityLevel;
        recycle(packet);
        dropBuffer(from, to, level, payload, reason);
    }

    private void dropBuffer(SimHost from, SimHost to, int level, ByteBuf payload, NetworkDropReason reason) {
        drops[reason.ordinal()]++;
        try {
            if (tap != null) {
                tap.dropped(from, to, level, payload, reason, nowNanos());
            }
        } finally {
            payload.release();
        }
    }

    /** A test's or harness's task at a virtual time; allocated per task (tasks are per RPC, not per packet). */
    private static final class TaskEvent extends SimEvent {
        private final Runnable task;

        TaskEvent(Runnable task) {
            this.task = task;
        }

        @Override
        void fire(SimulatedNetwork network) {
            task.run();
        }
    }
}
