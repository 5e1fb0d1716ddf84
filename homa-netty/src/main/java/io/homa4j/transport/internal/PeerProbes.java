package io.homa4j.transport.internal;

import io.homa4j.core.Engine;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Learns within about one round trip that nothing listens at a server's port, as TCP learns it from a refused
 * connection, so calls there fail with UNAVAILABLE at once instead of after {@code abortTicks} of silence.
 *
 * <p>Why a socket of its own per probed server: Linux reports the ICMP port unreachable that a datagram to a closed
 * port draws to the sending UDP socket only as an error on a <em>connected</em> socket (ECONNREFUSED on its next
 * receive), or in the error queue of a socket with IP_RECVERR, which Netty 4.2's epoll transport can switch on
 * but not read (it has no MSG_ERRQUEUE receive); and the endpoint's sockets are unconnected, one socket for
 * every peer. So for a server it calls and has not heard from lately, the endpoint opens a non-blocking JDK
 * {@link DatagramChannel} from an ephemeral port, connected to the server, and sends it one PROBE packet
 * (docs/protocol.md), which a Homa receiver counts and ignores. A refusal then shows as a
 * {@link PortUnreachableException} from a read of that channel, which {@link #poll} does once per timer tick (and
 * in the turn the probe went, which on loopback already sees it). A PROBE carries no payload: the JDK does not
 * send an empty datagram (a zero-length write sends nothing).
 *
 * <p>A probe closes when it is refused (the server's calls are failed), when the server has been heard from since
 * it opened (something listens), when no RPC with the server is left, after {@code abortTicks} (the calls' own
 * abort takes over), or when the endpoint closes. While open it sends its PROBE again every eighth of that time:
 * the ICMP answer to the first may have been suppressed by the sending host's rate limit
 * ({@code net.ipv4.icmp_ratelimit}: between hosts, about 6 at once and then 1 per second per destination host;
 * none on loopback). At most {@link #MAX_OPEN} probes are open at once; calls to further unheard servers fail by
 * the abort timer alone.
 *
 * <p>Threading: event loop only.
 */
public final class PeerProbes {
    private static final Logger LOG = LoggerFactory.getLogger(PeerProbes.class);
    /** Probes open at once: one socket each. */
    public static final int MAX_OPEN = 256;
    /** Times a probe's PROBE packet goes out within its lifetime, at most. */
    private static final int SENDS_PER_LIFETIME = 8;

    private final Engine engine;
    private final InetAddress bindAddress;
    private final TransportCounters counters;
    /** A server heard from within this long needs no probe; also the longest a probe stays open. */
    private final long lifetimeNanos;
    private final long resendNanos;
    private final long pollIntervalNanos;
    /** The PROBE packet, read through a duplicate per send. */
    private final ByteBuffer packet;
    private final ByteBuffer scratch = ByteBuffer.allocate(1);
    private final Map<InetSocketAddress, Probe> open = new HashMap<>();
    private long nextPollNanos = Long.MAX_VALUE;
    private boolean closed;

    /**
     * @param engine      the engine whose calls the probes serve: it says which servers were heard from, and fails
     *                    the calls to a refused one
     * @param bindAddress the endpoint's local address: probes leave from it (on an ephemeral port), so they take
     *                    the endpoint's route
     */
    public PeerProbes(Engine engine, HomaConfig config, InetAddress bindAddress, TransportCounters counters) {
        this.engine = engine;
        this.bindAddress = bindAddress;
        this.counters = counters;
        this.pollIntervalNanos = config.tickNanos();
        this.lifetimeNanos = config.abortTicks() * config.tickNanos();
        this.resendNanos = Math.max(pollIntervalNanos, lifetimeNanos / SENDS_PER_LIFETIME);
        byte[] probe = new byte[PacketType.PROBE.minLength()];
        new CommonHeader().wrap(Unpooled.wrappedBuffer(probe), 0).writeCommon(PacketType.PROBE, 0);
        this.packet = ByteBuffer.wrap(probe).asReadOnlyBuffer();
    }

    /**
     * A call to {@code server} started: probes it unless it was heard from within the last {@code abortTicks}
     * or a probe of it is open already.
     */
    public void probeIfUnheard(InetSocketAddress server, long nowNanos) {
        if (closed || engine.peerHeardSince(server, nowNanos - lifetimeNanos) || open.containsKey(server)) {
            return;
        }
        if (open.size() >= MAX_OPEN) {
            counters.probesSkipped++;
            return;
        }
        DatagramChannel channel = null;
        try {
            channel = DatagramChannel.open(familyOf(server.getAddress()));
            channel.configureBlocking(false);
            if (!bindAddress.isAnyLocalAddress() && familyOf(bindAddress) == familyOf(server.getAddress())) {
                channel.bind(new InetSocketAddress(bindAddress, 0));
            }
            channel.connect(server);
        } catch (IOException | RuntimeException e) {
            // An address this host cannot reach or bind towards: the call's own packets say the rest.
            closeQuietly(channel);
            counters.probesSkipped++;
            LOG.debug("cannot probe {}: {}", server, e.toString());
            return;
        }
        Probe probe = new Probe(server, channel, nowNanos);
        open.put(server, probe);
        counters.probesOpen = open.size();
        send(probe, nowNanos);
        nextPollNanos = nowNanos; // on loopback the refusal is already there at the end of this turn
    }

    /** When {@link #poll} has work, or {@code Long.MAX_VALUE} while no probe is open. */
    public long nextPollNanos() {
        return nextPollNanos;
    }

    /**
     * Checks every open probe: closes the answered, expired and needless ones, sends due PROBEs again, and fails
     * the calls to every server whose probe was refused (through {@link Engine#peerUnreachable}).
     */
    public void poll(long nowNanos) {
        List<Probe> refused = null;
        for (Iterator<Probe> it = open.values().iterator(); it.hasNext(); ) {
            Probe probe = it.next();
            Verdict verdict = judge(probe, nowNanos);
            if (verdict == Verdict.KEEP) {
                continue;
            }
            it.remove();
            closeQuietly(probe.channel);
            if (verdict == Verdict.REFUSED) {
                counters.probesRefused++;
                if (refused == null) {
                    refused = new ArrayList<>(1);
                }
                refused.add(probe);
            }
        }
        counters.probesOpen = open.size();
        nextPollNanos = open.isEmpty() ? Long.MAX_VALUE : nowNanos + pollIntervalNanos;
        if (refused != null) {
            // After the loop: failing calls runs the application's callbacks, which may start calls (and probes).
            for (Probe probe : refused) {
                int failed = engine.peerUnreachable(probe.server, probe.openedNanos, nowNanos);
                LOG.debug("port unreachable: {} ({} calls failed)", probe.server, failed);
            }
        }
    }

    private enum Verdict { KEEP, REFUSED, DONE }

    private Verdict judge(Probe probe, long nowNanos) {
        if (engine.peerHeardSince(probe.server, probe.openedNanos)) {
            return Verdict.DONE;
        }
        if (refused(probe)) {
            return Verdict.REFUSED;
        }
        if (engine.peerRpcCount(probe.server) == 0 || nowNanos - probe.openedNanos >= lifetimeNanos) {
            return Verdict.DONE;
        }
        if (nowNanos - probe.lastSentNanos >= resendNanos) {
            return send(probe, nowNanos) ? Verdict.KEEP : Verdict.REFUSED;
        }
        return Verdict.KEEP;
    }

    /** Whether the kernel reported the probe's port unreachable; other errors close the probe as unanswered. */
    private boolean refused(Probe probe) {
        try {
            // Nobody sends to a probe's port: a datagram here is stray, and is dropped by reading it.
            for (int i = 0; i < 4 && probe.channel.read(scratch.clear()) > 0; i++) {
                continue;
            }
            return false;
        } catch (PortUnreachableException e) {
            return true;
        } catch (IOException e) {
            LOG.debug("probe of {} failed: {}", probe.server, e.toString());
            return false;
        }
    }

    /** Sends the PROBE; false when the send itself reported the port unreachable (an error pending since). */
    private boolean send(Probe probe, long nowNanos) {
        probe.lastSentNanos = nowNanos;
        try {
            probe.channel.write(packet.duplicate());
            counters.probesSent++;
        } catch (PortUnreachableException e) {
            return false;
        } catch (IOException e) {
            LOG.debug("probe to {} not sent: {}", probe.server, e.toString());
        }
        return true;
    }

    /** Closes every probe; later calls probe nothing. */
    public void close() {
        closed = true;
        for (Probe probe : open.values()) {
            closeQuietly(probe.channel);
        }
        open.clear();
        counters.probesOpen = 0;
        nextPollNanos = Long.MAX_VALUE;
    }

    private static ProtocolFamily familyOf(InetAddress address) {
        return address instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
    }

    private static void closeQuietly(DatagramChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing a probe socket failed", e);
        }
    }

    /** One probed server: its socket, when the probe opened and when its PROBE last went. */
    private static final class Probe {
        final InetSocketAddress server;
        final DatagramChannel channel;
        final long openedNanos;
        long lastSentNanos;

        Probe(InetSocketAddress server, DatagramChannel channel, long openedNanos) {
            this.server = server;
            this.channel = channel;
            this.openedNanos = openedNanos;
        }
    }
}
