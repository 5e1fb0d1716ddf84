package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.epoll.SegmentedDatagramPacket;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * The UDP sockets of one endpoint, all on one event loop and bound to one address and port.
 *
 * <p>With epoll: one socket per priority level, every one with SO_REUSEPORT (so they, and the sockets of other
 * endpoints that ask for the same port, share it) and IP_TOS = {@code HomaConfig.dscpForLevel(level) << 2}.
 * Which of them receives a datagram is the kernel's SO_REUSEPORT choice, a hash of the sender's address and port,
 * not the datagram's TOS: a peer's packets of every level arrive on one socket, so all sockets read alike.
 *
 * <p>Reads: UDP_GRO on, so the kernel hands over a run of same-size datagrams from one sender (a peer's GSO
 * send, or what a NIC's GRO merged) as one buffer of up to 64 KB, and recvmmsg, up to {@link #RECV_SLOTS} such
 * buffers per syscall, level-triggered. Netty 4.2.18 mishandles GRO reads it makes with recvmmsg (the segment
 * size is lost; with slots smaller than 64 KB the reads are cut short): the slots are therefore 64 KB, and
 * {@link HomaInboundHandler} cuts each read back into packets by the lengths the packets declare. Without UDP_GRO
 * (kernels before 5.0) the same slots receive one datagram each.
 *
 * <p>With NIO: the same layout when the JDK supports SO_REUSEPORT on this OS; otherwise one socket carrying
 * every level, marked with the highest level's TOS (NIO cannot mark per packet).
 *
 * <p>Threading: {@link #bind} blocks the caller until bound and must not run on the event loop;
 * {@link #close} may run anywhere.
 */
public final class UdpTransport {
    private static final Logger LOG = LoggerFactory.getLogger(UdpTransport.class);
    private static final AtomicBoolean CHOICE_LOGGED = new AtomicBoolean();

    /** Times an ephemeral port is reserved and bound before giving up (another process may race for it). */
    private static final int EPHEMERAL_BIND_ATTEMPTS = 5;

    /** Bytes of one recvmmsg slot: the largest read UDP GRO makes (a coalesced run of datagrams). */
    public static final int RECV_SLOT_BYTES = 65_536;
    /**
     * Slots per recvmmsg call. Each socket reads into one buffer of {@code RECV_SLOTS x RECV_SLOT_BYTES} (1 MiB),
     * used again for every read ({@link ReusedReadBuffer}): packets are slices of it until the engine has copied
     * them, which it does before the read's burst returns.
     */
    public static final int RECV_SLOTS = 16;
    /**
     * Datagrams read from one socket per event-loop turn before other work runs. Netty's default (16) lets a
     * burst of timer work (RESEND, NEED_ACK to thousands of RPCs) starve the sockets until they overflow; with
     * Homa, draining the receive queue is what unblocks everything else, so it gets the larger share.
     */
    public static final int MAX_READS_PER_WAKE = 256;

    /** The transports there are. */
    public enum Kind { EPOLL, NIO }

    private final Kind kind;
    private final Channel[] channelByLevel;
    private final Channel[] sockets;
    /** Each socket's read buffers ({@code null} for sockets the caller set up), dropped at {@link #close}. */
    private final ReusedReadBuffer[] readBuffers;
    private final InetSocketAddress localAddress;
    private final boolean perLevelTos;

    private UdpTransport(Kind kind, Channel[] channelByLevel, Channel[] sockets, ReusedReadBuffer[] readBuffers,
                         InetSocketAddress localAddress, boolean perLevelTos) {
        this.kind = kind;
        this.channelByLevel = channelByLevel;
        this.sockets = sockets;
        this.readBuffers = readBuffers;
        this.localAddress = localAddress;
        this.perLevelTos = perLevelTos;
    }

    /**
     * The kind to use when the caller has no preference: EPOLL where the native library loads, NIO elsewhere. The
     * first choice made in this JVM is logged with its reason.
     */
    public static Kind automatic() {
        boolean epoll = Epoll.isAvailable();
        Kind kind = epoll ? Kind.EPOLL : Kind.NIO;
        logChoice(kind, epoll ? "native epoll library loaded"
                : "native epoll unavailable (" + Epoll.unavailabilityCause() + ")");
        return kind;
    }

    /**
     * Checks that an explicitly asked-for kind can run here. The first choice made in this JVM is logged.
     *
     * @throws TransportUnavailableException when EPOLL is asked for and the native library cannot load
     */
    public static Kind require(Kind kind) {
        if (kind == Kind.EPOLL && !Epoll.isAvailable()) {
            throw new TransportUnavailableException("epoll transport requested but unavailable: "
                    + Epoll.unavailabilityCause(), Epoll.unavailabilityCause());
        }
        logChoice(kind, "requested explicitly");
        return kind;
    }

    private static void logChoice(Kind kind, String reason) {
        if (CHOICE_LOGGED.compareAndSet(false, true)) {
            LOG.info("Homa4J transport: {} ({}); UDP GSO {}", kind, reason,
                    kind == Kind.EPOLL && SegmentedDatagramPacket.isSupported() ? "supported" : "unavailable");
        }
    }

    /** The I/O handler a dedicated event loop of this kind needs. */
    public static IoHandlerFactory ioHandlerFactory(Kind kind) {
        return ioHandlerFactory(kind, false);
    }

    /**
     * The I/O handler a dedicated event loop of this kind needs; with {@code busyPoll}, one that never sleeps in
     * the kernel: every loop turn polls the sockets without waiting (epoll_wait or select with timeout 0), then
     * runs due timers and queued tasks, and turns again. A packet is then seen within one turn (about a
     * microsecond) instead of after a wake-up (tens of microseconds on a loaded VM), at the price of one core
     * spinning at 100% for as long as the loop lives, even idle. Unlike Netty's BUSY_WAIT strategy, which spins
     * in native code until a socket event and so leaves timers and tasks from other threads waiting for the next
     * packet, this keeps the engine's pacer and timers on time.
     */
    public static IoHandlerFactory ioHandlerFactory(Kind kind, boolean busyPoll) {
        return ioHandlerFactory(kind, busyPoll, 0);
    }

    /**
     * {@link #ioHandlerFactory(Kind, boolean)}; without {@code busyPoll} and with {@code idleSpinNanos} above 0, a
     * loop that polls its sockets for up to that long before it sleeps while a call waits for its response
     * ({@link IdleSpin}).
     */
    public static IoHandlerFactory ioHandlerFactory(Kind kind, boolean busyPoll, long idleSpinNanos) {
        if (kind == Kind.EPOLL) {
            EpollWaitTimers.preferTimerFd(); // before EpollIoHandler's class reads it
        }
        SelectStrategyFactory strategy;
        if (busyPoll) {
            strategy = LoopTurns.countingBusyPoll();
        } else if (idleSpinNanos > 0) {
            strategy = IdleSpin.spinBeforeSleep(idleSpinNanos);
        } else {
            return kind == Kind.EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        }
        return kind == Kind.EPOLL ? EpollIoHandler.newFactory(0, strategy)
                : NioIoHandler.newFactory(SelectorProvider.provider(), strategy);
    }

    /**
     * The kind a supplied event loop carries: EPOLL for an epoll loop, NIO for an NIO loop.
     *
     * @throws IllegalArgumentException when the loop is neither
     */
    public static Kind kindOf(EventLoop loop) {
        if (!(loop instanceof IoEventLoop ioLoop)) {
            throw new IllegalArgumentException("the event loop group must be a MultiThreadIoEventLoopGroup: " + loop);
        }
        boolean isEpoll = Epoll.isAvailable() && ioLoop.isIoType(EpollIoHandler.class);
        if (!isEpoll && !ioLoop.isIoType(NioIoHandler.class)) {
            throw new IllegalArgumentException("the event loop group has neither an epoll nor an NIO I/O handler");
        }
        Kind kind = isEpoll ? Kind.EPOLL : Kind.NIO;
        if (CHOICE_LOGGED.compareAndSet(false, true)) {
            LOG.info("Homa4J transport: {} (from the supplied event loop group)", kind);
        }
        return kind;
    }

    /**
     * {@link #bind(Kind, EventLoop, InetAddress, int, HomaConfig, int, ChannelHandler, IntFunction, boolean)} with
     * no extra handler, not joining a port in use.
     */
    public static UdpTransport bind(Kind kind, EventLoop loop, InetAddress address, int port, HomaConfig config,
                                    int socketBufferBytes, ChannelHandler inbound) {
        return bind(kind, loop, address, port, config, socketBufferBytes, inbound, null, false);
    }

    /**
     * Binds the sockets, with one more handler in front of {@code inbound} in each socket's pipeline when asked.
     *
     * @param port              0 for an ephemeral port (every level then shares the one the first socket got)
     * @param socketBufferBytes SO_RCVBUF and SO_SNDBUF of each socket (the kernel caps them at rmem_max/wmem_max)
     * @param beforeInbound     the extra handler for the socket of each priority level (a fault injector in tests
     *                          and experiments), or null for none: production sockets carry {@code inbound} alone
     * @param joinExistingPort  whether a non-zero port that other sockets hold (with SO_REUSEPORT, of this user)
     *                          may be joined, sharing its traffic with them; when false such a port is refused
     * @throws TransportUnavailableException when binding fails, or the port is in use and not to be joined
     */
    public static UdpTransport bind(Kind kind, EventLoop loop, InetAddress address, int port, HomaConfig config,
                                    int socketBufferBytes, ChannelHandler inbound,
                                    IntFunction<ChannelHandler> beforeInbound,
                                    boolean joinExistingPort) {
        if (port != 0 && !joinExistingPort) {
            refuseIfInUse(address, port);
        }
        boolean reusePort = kind == Kind.EPOLL || nioSupportsReusePort();
        int levels = config.priorityLevels();
        int socketCount = reusePort ? levels : 1;
        Channel[] sockets = new Channel[socketCount];
        ReusedReadBuffer[] readBuffers = new ReusedReadBuffer[socketCount];
        Runnable handOnPending = inbound instanceof HomaInboundHandler homa ? homa::deliverBurst : () -> { };
        BooleanSupplier loopSlept = inbound instanceof HomaInboundHandler homa ? homa::loopSleptSinceLastTurn
                : () -> false;
        for (int attempt = 1; ; attempt++) {
            // Port 0 with SO_REUSEPORT set would let the kernel hand out a port that another SO_REUSEPORT group of
            // the same user (another endpoint, in this process or another) already holds, and the two would then
            // share each other's traffic. So an ephemeral port is first taken by a plain socket, which the kernel
            // only gives a port nobody uses, and the group binds that port.
            int target = port != 0 ? port : reserveEphemeralPort(address);
            try {
                for (int i = 0; i < socketCount; i++) {
                    int level = reusePort ? i : levels - 1;
                    ReusedReadBuffer readBuffer = new ReusedReadBuffer(RECV_SLOT_BYTES, RECV_SLOTS, handOnPending,
                            loopSlept);
                    ChannelHandler handlers = beforeInbound == null ? inbound
                            : pipelineOf(beforeInbound.apply(level), inbound);
                    // An extra handler (a fault filter) judges datagrams one by one, so its sockets read without
                    // GRO: a coalesced run of up to 45 packets would otherwise be one datagram to it.
                    Bootstrap bootstrap = bootstrap(kind, loop, address, config, socketBufferBytes, reusePort, level,
                            handlers, readBuffer, beforeInbound == null);
                    sockets[i] = bootstrap.bind(address, target).syncUninterruptibly().channel();
                    sockets[i].closeFuture().addListener(closed -> readBuffer.releaseHeld());
                    readBuffers[i] = readBuffer;
                }
                break;
            } catch (Exception e) { // syncUninterruptibly rethrows the bind's IOException unchecked
                closeAll(sockets);
                Arrays.fill(sockets, null);
                Arrays.fill(readBuffers, null);
                if (port == 0 && attempt < EPHEMERAL_BIND_ATTEMPTS) {
                    continue; // someone took the reserved port in between: reserve another
                }
                throw new TransportUnavailableException("cannot bind UDP " + address.getHostAddress() + ":"
                        + target + " (" + kind + "): " + e, e);
            }
        }
        Channel[] byLevel = new Channel[levels];
        for (int level = 0; level < levels; level++) {
            byLevel[level] = sockets[reusePort ? level : 0];
        }
        if (!reusePort) {
            LOG.warn("NIO without SO_REUSEPORT: one socket for all {} priority levels, TOS fixed at level {}",
                    levels, levels - 1);
        }
        InetSocketAddress local = (InetSocketAddress) sockets[0].localAddress();
        return new UdpTransport(kind, byLevel, sockets, readBuffers, local, reusePort);
    }

    private static Bootstrap bootstrap(Kind kind, EventLoop loop, InetAddress address, HomaConfig config,
                                       int socketBufferBytes, boolean reusePort, int level, ChannelHandler inbound,
                                       ReusedReadBuffer readBuffer, boolean gro) {
        SocketProtocolFamily family = address instanceof Inet6Address
                ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        // One byte more than the largest valid packet, so a longer (truncated) datagram is recognisable.
        int slot = config.maxUdpPayload() + 1;
        int tos = config.dscpForLevel(level) << 2;
        Bootstrap b = new Bootstrap().group(loop).handler(inbound)
                .option(ChannelOption.SO_RCVBUF, socketBufferBytes)
                .option(ChannelOption.SO_SNDBUF, socketBufferBytes)
                .option(ChannelOption.IP_TOS, tos);
        if (kind == Kind.EPOLL) {
            ChannelFactory<Channel> factory = () -> new EpollDatagramChannel(family);
            b.channelFactory(factory)
                    // Level-triggered: a socket still holding datagrams when its read budget runs out is
                    // reported again on the next turn by the kernel, instead of relying on Netty to re-arm the read
                    // under edge triggering (under overload we saw sockets sit full while the loop ran).
                    .option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED)
                    .option(EpollChannelOption.SO_REUSEPORT, true)
                    .option(EpollChannelOption.UDP_GRO, gro)
                    .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, RECV_SLOT_BYTES)
                    // A recvmmsg buffer is larger than what Netty 4.2's default adaptive allocator pools: it
                    // malloc'd, zeroed and freed one per read (seen in netlab profiles as Unsafe.setMemory/
                    // freeMemory). The pooled allocator, which the engine already uses, serves it from its arena.
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, readBuffer.maxMessagesPerRead(MAX_READS_PER_WAKE));
        } else {
            ChannelFactory<Channel> factory = () -> new NioDatagramChannel(family);
            b.channelFactory(factory)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(slot)
                            .maxMessagesPerRead(MAX_READS_PER_WAKE));
            if (reusePort) {
                b.option(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT), true);
            }
        }
        return b;
    }

    private static ChannelHandler pipelineOf(ChannelHandler first, ChannelHandler second) {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline().addLast(first, second);
            }
        };
    }

    /**
     * Throws unless no socket holds {@code port} on {@code address} right now. The sockets' SO_REUSEPORT (which the
     * per-level sockets need among themselves) would otherwise let a second endpoint, of this process or another,
     * bind a port in use and silently take part of its traffic: the kernel spreads senders over the group. A
     * plain socket only binds a port nobody holds. (A port taken between this probe and the bind is not caught.)
     */
    private static void refuseIfInUse(InetAddress address, int port) {
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress(address, port));
        } catch (IOException inUse) {
            throw new TransportUnavailableException("UDP " + address.getHostAddress() + ":" + port
                    + " is in use (" + inUse.getMessage() + "); to share it with the sockets that hold it, say so:"
                    + " HomaEndpointBuilder.joinExistingPort(true)", inUse);
        }
    }

    /** A port on {@code address} that no socket holds right now (the probe socket is closed again). */
    private static int reserveEphemeralPort(InetAddress address) {
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress(address, 0));
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new TransportUnavailableException("cannot find a free UDP port on "
                    + address.getHostAddress() + ": " + e, e);
        }
    }

    private static boolean nioSupportsReusePort() {
        try (DatagramChannel probe = DatagramChannel.open()) {
            return probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void closeAll(Channel[] sockets) {
        for (Channel c : sockets) {
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * Sockets the caller made and set up itself, with their pipelines: an embedded channel in tests that run an
     * endpoint without the kernel, every priority level on it, no GSO. {@link #close} closes it.
     *
     * @param kind         what {@link #kind} reports
     * @param channel      the one socket of every level
     * @param localAddress the address peers send to
     * @param levels       the priority levels (entries of {@link #channelByLevel})
     */
    public static UdpTransport adopt(Kind kind, Channel channel, InetSocketAddress localAddress, int levels) {
        Channel[] byLevel = new Channel[levels];
        Arrays.fill(byLevel, channel);
        return new UdpTransport(kind, byLevel, new Channel[] {channel}, new ReusedReadBuffer[1], localAddress,
                false);
    }

    public Kind kind() {
        return kind;
    }

    /** The address every socket is bound to. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** The socket of each priority level (entries repeat when levels share a socket). */
    public Channel[] channelByLevel() {
        return channelByLevel.clone();
    }

    /** True when every level has its own socket and TOS byte. */
    public boolean perLevelTos() {
        return perLevelTos;
    }

    /** The GSO message factory for a sink, or null when this transport cannot do UDP GSO. */
    public DatagramSink.GsoPacketFactory gsoFactory() {
        if (kind == Kind.EPOLL && SegmentedDatagramPacket.isSupported()) {
            return SegmentedDatagramPacket::new;
        }
        return null;
    }

    /**
     * Closes every socket and drops the read buffers they hold; returns when they are closed unless called on
     * their event loop. Each socket's buffers are also dropped when its close completes, but not every close
     * completes: on the loop, a close can be put off (a flush in progress) past the loop's own end, and from
     * another thread, a loop that is gone runs none. Dropping twice is harmless.
     */
    public void close() {
        for (int i = 0; i < sockets.length; i++) {
            Channel c = sockets[i];
            if (c.eventLoop().inEventLoop()) {
                c.close();
                releaseReadBuffers(i);
            } else if (!c.close().awaitUninterruptibly().isSuccess() && c.eventLoop().isTerminated()) {
                releaseReadBuffers(i); // nothing runs on that loop any more, so its buffers are ours to free
            }
        }
    }

    private void releaseReadBuffers(int socket) {
        if (readBuffers[socket] != null) {
            readBuffers[socket].releaseHeld();
        }
    }
}
