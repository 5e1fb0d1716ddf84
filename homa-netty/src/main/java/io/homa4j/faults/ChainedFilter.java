package io.homa4j.faults;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.InetSocketAddress;

/** Two filters in series (see {@link DatagramFilter#chain}). Event loop only. */
final class ChainedFilter implements DatagramFilter {
    private final DatagramFilter first;
    private final DatagramFilter second;

    ChainedFilter(DatagramFilter first, DatagramFilter second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public void outbound(InetSocketAddress peer, int priorityLevel, ByteBuf packet, DatagramPath path) {
        first.outbound(peer, priorityLevel, packet, new Junction(path, true, 0));
    }

    @Override
    public void inbound(InetSocketAddress from, ByteBuf packet, DatagramPath path) {
        first.inbound(from, packet, new Junction(path, false, 0));
    }

    /** A path that drops and allocates through {@code end}. */
    private abstract static class Towards implements DatagramPath {
        final DatagramPath end;

        Towards(DatagramPath end) {
            this.end = end;
        }

        @Override
        public void drop(ByteBuf packet) {
            end.drop(packet);
        }

        @Override
        public ByteBufAllocator alloc() {
            return end.alloc();
        }
    }

    /**
     * The path out of {@code first}: into {@code second}, whose own path delays everything by what
     * {@code first} asked for.
     */
    private final class Junction extends Towards {
        private final boolean outbound;
        private final long addedDelayNanos;

        Junction(DatagramPath end, boolean outbound, long addedDelayNanos) {
            super(end);
            this.outbound = outbound;
            this.addedDelayNanos = addedDelayNanos;
        }

        @Override
        public void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            DatagramPath next = addedDelayNanos == 0 ? end : new Delayed(end, addedDelayNanos);
            if (outbound) {
                second.outbound(address, priorityLevel, packet, next);
            } else {
                second.inbound(address, packet, next);
            }
        }

        @Override
        public void forwardLater(long delayNanos, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            new Junction(end, outbound, addedDelayNanos + Math.max(0, delayNanos))
                    .forward(address, priorityLevel, packet);
        }
    }

    /** {@code end}, with every forward postponed by {@code delayNanos}. */
    private static final class Delayed extends Towards {
        private final long delayNanos;

        Delayed(DatagramPath end, long delayNanos) {
            super(end);
            this.delayNanos = delayNanos;
        }

        @Override
        public void forward(InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            end.forwardLater(delayNanos, address, priorityLevel, packet);
        }

        @Override
        public void forwardLater(long delay, InetSocketAddress address, int priorityLevel, ByteBuf packet) {
            end.forwardLater(delayNanos + Math.max(0, delay), address, priorityLevel, packet);
        }
    }
}
