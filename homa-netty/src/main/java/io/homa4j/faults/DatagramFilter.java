package io.homa4j.faults;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * Fault-injection hook between the engine and the sockets: decides, datagram by datagram, what reaches the
 * network (outbound) or the engine (inbound): the datagram itself, nothing, several copies, an altered copy, or
 * the datagram a little later. Meant for tests and experiments (loss, duplication, reordering, corruption,
 * one-way partitions); production endpoints use {@link #NONE}. {@link FaultInjector} is the ready-made one.
 *
 * <p>Ownership: each method takes ownership of {@code packet} and must hand it, exactly once, to
 * {@link DatagramPath#forward}, {@link DatagramPath#forwardLater} or {@link DatagramPath#drop}; extra datagrams (a
 * duplicate, an altered copy) are new buffers the filter allocates and hands on the same way. The path owns what
 * it is given: it releases packets held for later when the endpoint closes, so a filter never holds buffers.
 *
 * <p>Threading: called on the endpoint's event loop only, so one instance must not serve several endpoints
 * unless it is stateless.
 */
@Unstable("fault injection for tests")
public interface DatagramFilter {

    /** Passes everything, unaltered and at once. */
    DatagramFilter NONE = new DatagramFilter() {
        @Override
        public void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, DatagramPath path) {
            path.forward(peer, priorityLevel, packet);
        }

        @Override
        public void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path) {
            path.forward(from, 0, packet);
        }
    };

    /** {@code packet} is on its way to {@code peer} at {@code priorityLevel}; the path leads to the socket. */
    void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, DatagramPath path);

    /** {@code packet} arrived from {@code from}; the path leads to the engine (which ignores the level). */
    void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path);

    /**
     * Drops each datagram, in both directions, independently with probability {@code dropProbability}, from a
     * seeded generator, so a single-threaded run drops the same packets every time.
     */
    static FaultInjector lossy(long seed, double dropProbability) {
        Faults loss = Faults.NONE.withDrop(dropProbability);
        return new FaultInjector(seed, loss, loss);
    }

    /**
     * {@code first} then {@code second}: what {@code first} forwards, {@code second} judges (at once, also when
     * {@code first} forwards it later: the delays add up).
     */
    static DatagramFilter chain(DatagramFilter first, DatagramFilter second) {
        return new ChainedFilter(first, second);
    }
}
