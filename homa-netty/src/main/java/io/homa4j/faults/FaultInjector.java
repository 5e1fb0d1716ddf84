package io.homa4j.faults;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;

/**
 * A {@link DatagramFilter} that drops, corrupts, duplicates and delays (hence reorders) datagrams at random with
 * fixed probabilities per direction ({@link Faults}). Each direction draws from its own generator seeded from
 * {@code seed}, so the same sequence of datagrams meets the same faults every run, and traffic in one direction
 * does not change the faults of the other.
 *
 * <p>Order of faults for one datagram: drop (then nothing else happens), corrupt, duplicate (the copy carries
 * the corruption too, as a duplicating link would), then delay, decided for each copy on its own.
 *
 * <p>Threading: the filter methods run on one endpoint's event loop (one injector per endpoint); the counts may
 * be read from any thread.
 */
@Unstable("fault injection for tests")
public final class FaultInjector implements DatagramFilter {
    private final Direction outbound;
    private final Direction inbound;

    public FaultInjector(long seed, Faults outbound, Faults inbound) {
        SplittableRandom root = new SplittableRandom(seed);
        this.outbound = new Direction(outbound, root.split());
        this.inbound = new Direction(inbound, root.split());
    }

    /** The same faults both ways. */
    public static FaultInjector symmetric(long seed, Faults faults) {
        return new FaultInjector(seed, faults, faults);
    }

    @Override
    public void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, DatagramPath path) {
        outbound.apply(peer, priorityLevel, packet, path);
    }

    @Override
    public void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path) {
        inbound.apply(from, 0, packet, path);
    }

    public FaultCounts outboundCounts() {
        return outbound.counts();
    }

    public FaultCounts inboundCounts() {
        return inbound.counts();
    }

    public long droppedOutbound() {
        return outbound.dropped;
    }

    public long droppedInbound() {
        return inbound.dropped;
    }

    /** One direction's faults, generator and counts. Single writer: the event loop. */
    private static final class Direction {
        private final Faults faults;
        private final SplittableRandom random;
        private volatile long seen;
        private volatile long dropped;
        private volatile long corrupted;
        private volatile long duplicated;
        private volatile long delayed;

        Direction(Faults faults, SplittableRandom random) {
            this.faults = faults;
            this.random = random;
        }

        void apply(InetSocketAddress address, int level, ByteBuf packet, DatagramPath path) {
            seen++;
            if (happens(faults.drop())) {
                dropped++;
                path.drop(packet);
                return;
            }
            if (happens(faults.corrupt())) {
                corrupted++;
                packet = flipOneBit(packet, path);
            }
            ByteBuf copy = null;
            if (happens(faults.duplicate())) {
                duplicated++;
                copy = copyOf(packet, path);
            }
            pass(address, level, packet, path);
            if (copy != null) {
                pass(address, level, copy, path);
            }
        }

        private void pass(InetSocketAddress address, int level, ByteBuf packet, DatagramPath path) {
            if (happens(faults.delay())) {
                delayed++;
                path.forwardLater(1 + random.nextLong(faults.maxDelayNanos()), address, level, packet);
            } else {
                path.forward(address, level, packet);
            }
        }

        private boolean happens(double probability) {
            return probability > 0 && random.nextDouble() < probability;
        }

        /** A copy of {@code packet} with one bit flipped; releases {@code packet}. */
        private ByteBuf flipOneBit(ByteBuf packet, DatagramPath path) {
            ByteBuf copy;
            try {
                copy = copyOf(packet, path);
            } finally {
                packet.release();
            }
            int length = copy.readableBytes();
            if (length > 0) {
                int index = copy.readerIndex() + random.nextInt(length);
                copy.setByte(index, copy.getByte(index) ^ (1 << random.nextInt(8)));
            }
            return copy;
        }

        private static ByteBuf copyOf(ByteBuf packet, DatagramPath path) {
            int length = packet.readableBytes();
            return path.alloc().directBuffer(length).writeBytes(packet, packet.readerIndex(), length);
        }

        FaultCounts counts() {
            return new FaultCounts(seen, dropped, corrupted, duplicated, delayed);
        }
    }
}
