package io.homa4j.bench.hostile;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.PacketEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A peer that attacks a Homa endpoint over loopback UDP with packets built by the engine's own encoder, so they
 * pass the decoder and reach the protocol logic: DATA for RPCs the target never started, requests declaring
 * lengths beyond any limit, GRANT and RESEND for ids that never existed, and floods of new requests' unscheduled
 * bytes, each sent from one of many source ports (each port is a distinct peer to the target). It never reads
 * what the target answers.
 *
 * <p>Not thread-safe: one sending thread. Sends only to the loopback target it was given.
 */
public final class HostilePeer implements AutoCloseable {
    /** The kinds of attack, one packet (or one flood message) per {@link #send} call. */
    public enum Attack {
        /** DATA with a server's (odd) id for a client RPC the target does not have. */
        SPOOFED_DATA,
        /** The first packet of a request declaring up to 2 GB, beyond maxMessageBytes. */
        HUGE_LENGTH,
        /** GRANT for an id that never existed, either direction. */
        GHOST_GRANT,
        /** RESEND for an id that never existed, either direction. */
        GHOST_RESEND,
        /** A new request's unscheduled packets (up to {@code floodBytes}), and then silence. */
        UNSCHEDULED_FLOOD,
        /**
         * The memory attack: one first packet of a request declaring maxMessageBytes, and nothing more. It must
         * not pin the declared length: the engine reserves buffer space as bytes arrive.
         */
        HUGE_FIRST_PACKET,
        /**
         * The reflection probe: the smallest incomplete request, a 2-byte message with its first
         * byte (69 bytes on the wire), whose answers go to the (forged) source port.
         */
        TINY_FIRST_PACKET;

        /** The kinds {@code hostile} mixes by default. */
        public static final java.util.List<Attack> MIXED = java.util.List.of(SPOOFED_DATA, HUGE_LENGTH, GHOST_GRANT,
                GHOST_RESEND, UNSCHEDULED_FLOOD);
    }

    private static final int SEGMENT = 1_400;
    private static final int SPOOFED_MAX_LENGTH = 100_000;

    private final InetSocketAddress target;
    private final DatagramChannel[] ports;
    private final SplittableRandom random;
    private final int maxMessageBytes;
    private final int floodMessageBytes;
    private final int floodBytes;
    private final PacketEncoder encoder = new PacketEncoder(new UnpooledByteBufAllocator(false, true));
    /** Message bytes for DATA at any offset the attacks use. */
    private final ByteBuf zeros;
    private final ByteBuffer scratch = ByteBuffer.allocate(SEGMENT + 64);
    private final Map<Attack, Long> packetsSent = new EnumMap<>(Attack.class);
    private long bytesSentOnWire;
    private long datagramsReflected;
    private long bytesReflectedOnWire;
    private long nextId = 2;

    /**
     * @param target            loopback address of the endpoint to attack
     * @param portCount         source ports to send from
     * @param maxMessageBytes   the target's limit: huge lengths lie beyond it, flood messages within it
     * @param floodMessageBytes declared length of each flood message (at most maxMessageBytes)
     * @param floodBytes        bytes of each flood message actually sent, from offset 0
     */
    public HostilePeer(InetSocketAddress target, int portCount, long seed, int maxMessageBytes,
                       int floodMessageBytes, int floodBytes) throws IOException {
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("hostile traffic goes to loopback only: " + target);
        }
        this.target = target;
        this.random = new SplittableRandom(seed);
        this.maxMessageBytes = maxMessageBytes;
        this.floodMessageBytes = Math.min(floodMessageBytes, maxMessageBytes);
        this.floodBytes = Math.min(floodBytes, this.floodMessageBytes);
        this.zeros = Unpooled.wrappedBuffer(new byte[Math.max(SPOOFED_MAX_LENGTH, this.floodBytes) + SEGMENT]);
        this.ports = new DatagramChannel[portCount];
        try {
            for (int i = 0; i < portCount; i++) {
                ports[i] = DatagramChannel.open();
                ports[i].bind(new InetSocketAddress(target.getAddress(), 0));
                ports[i].configureBlocking(false);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        for (Attack a : Attack.values()) {
            packetsSent.put(a, 0L);
        }
    }

    /** Sends one attack of {@code kind} from a random source port; returns the datagrams it sent. */
    public int send(Attack kind) throws IOException {
        DatagramChannel from = ports[random.nextInt(ports.length)];
        long id = nextId += 2;
        int sent = 0;
        switch (kind) {
            case SPOOFED_DATA: {
                int length = 1 + random.nextInt(SPOOFED_MAX_LENGTH);
                int segment = Math.min(length, SEGMENT);
                int offset = random.nextInt(length - segment + 1);
                sent += send(from, encoder.data(id | 1, length, offset, length, 0, 0, 0, zeros, segment));
                break;
            }
            case HUGE_LENGTH: {
                int length = maxMessageBytes + 1 + random.nextInt(Integer.MAX_VALUE - maxMessageBytes);
                sent += send(from, encoder.data(id, length, 0, length, 0, 0, 0, zeros, SEGMENT));
                break;
            }
            case GHOST_GRANT:
                sent += send(from, encoder.grant(id | random.nextInt(2), random.nextInt(Integer.MAX_VALUE),
                        random.nextInt(8)));
                break;
            case GHOST_RESEND:
                sent += send(from, encoder.resend(id | random.nextInt(2), random.nextInt(1 << 20),
                        random.nextInt(1 << 20), random.nextInt(8)));
                break;
            case HUGE_FIRST_PACKET:
                sent += send(from, encoder.data(id, maxMessageBytes, 0, maxMessageBytes, 0, 0, 0, zeros,
                        Math.min(SEGMENT, maxMessageBytes)));
                break;
            case TINY_FIRST_PACKET:
                sent += send(from, encoder.data(id, 2, 0, 2, 0, 0, 0, zeros, 1));
                break;
            default: // UNSCHEDULED_FLOOD
                for (int offset = 0; offset < floodBytes; offset += SEGMENT) {
                    int segment = Math.min(SEGMENT, floodMessageBytes - offset);
                    sent += send(from, encoder.data(id, floodMessageBytes, offset, floodBytes, 0, 0, 0,
                            zeros, segment));
                }
        }
        packetsSent.merge(kind, (long) sent, Long::sum);
        return sent;
    }

    private int send(DatagramChannel from, ByteBuf packet) throws IOException {
        try {
            scratch.clear();
            packet.getBytes(packet.readerIndex(), scratch.array(), 0, packet.readableBytes());
            scratch.limit(packet.readableBytes());
            if (from.send(scratch, target) == 0) {
                return 0; // the socket buffer is full, the datagram is lost
            }
            bytesSentOnWire += packet.readableBytes() + HomaConfig.IP_UDP_HEADER_BYTES;
            return 1;
        } finally {
            packet.release();
        }
    }

    /**
     * Reads whatever the target sent back to the attacker's ports (its answers to forged packets: what a victim
     * whose address the attacker wrote would receive) and counts it; call it often enough that the ports' receive
     * buffers do not overflow.
     */
    public void drainReflected() throws IOException {
        ByteBuffer in = ByteBuffer.allocate(65_536);
        for (DatagramChannel port : ports) {
            while (true) {
                in.clear();
                if (port.receive(in) == null) {
                    break;
                }
                datagramsReflected++;
                bytesReflectedOnWire += in.position() + HomaConfig.IP_UDP_HEADER_BYTES;
            }
        }
    }

    /** Bytes (IP and UDP headers included) of the attack datagrams handed to the kernel. */
    public long bytesSentOnWire() {
        return bytesSentOnWire;
    }

    /** Datagrams the target sent to the attacker's ports, as far as {@link #drainReflected} read them. */
    public long datagramsReflected() {
        return datagramsReflected;
    }

    /** Their bytes, IP and UDP headers included. */
    public long bytesReflectedOnWire() {
        return bytesReflectedOnWire;
    }

    /** Datagrams handed to the kernel, by attack. */
    public Map<Attack, Long> packetsSent() {
        return new EnumMap<>(packetsSent);
    }

    public int portCount() {
        return ports.length;
    }

    @Override
    public void close() {
        for (DatagramChannel c : ports) {
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing a UDP socket we only sent from
                }
            }
        }
    }
}
