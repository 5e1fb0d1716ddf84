package io.homa4j.bench.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.RawUnixChannelOption;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TCP baseline's socket plumbing: epoll when the native transport loads (NIO otherwise), one event-loop thread
 * per side (as a Homa endpoint has), and the congestion-control algorithm set per socket with
 * {@code setsockopt(IPPROTO_TCP, TCP_CONGESTION)}, which Netty exposes on epoll as a raw option.
 */
final class TcpSockets {
    /** The algorithm the reference benchmark uses for TCP. */
    static final String CONGESTION_CONTROL = "cubic";

    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    /** TCP_CA_NAME_MAX in the kernel. */
    private static final int CA_NAME_MAX = 16;
    static final RawUnixChannelOption TCP_CONGESTION_OPTION =
            new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION, CA_NAME_MAX);

    private TcpSockets() {
    }

    static boolean epoll() {
        return Epoll.isAvailable();
    }

    static EventLoopGroup newGroup(String name) {
        IoHandlerFactory factory = epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), factory);
    }

    static Class<? extends Channel> socketChannel() {
        return epoll() ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static Class<? extends ServerChannel> serverSocketChannel() {
        return epoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** The option value naming {@code algorithm}, zero-padded to the kernel's name length. */
    static ByteBuffer congestionValue(String algorithm) {
        ByteBuffer value = ByteBuffer.allocateDirect(CA_NAME_MAX);
        value.put(algorithm.getBytes(StandardCharsets.US_ASCII));
        value.position(0);
        return value;
    }

    /**
     * Sets {@link #CONGESTION_CONTROL} on an epoll socket (a fresh option value each time: Netty consumes the
     * buffer). When the kernel refuses (not allowed for this user), the socket keeps the system default, which
     * {@link #congestionControlOf} then reports.
     */
    static void useCongestionControl(Channel channel) {
        if (channel instanceof EpollSocketChannel) {
            try {
                channel.config().setOption(TCP_CONGESTION_OPTION, congestionValue(CONGESTION_CONTROL));
            } catch (RuntimeException refused) {
                // reported through congestionControlOf
            }
        }
    }

    /** The congestion-control algorithm the socket of {@code channel} really uses, read back from the kernel. */
    static String congestionControlOf(Channel channel) {
        if (!(channel instanceof EpollSocketChannel)) {
            return systemDefaultCongestionControl() + " (system default; NIO cannot set it per socket)";
        }
        try {
            ByteBuffer value = channel.config().getOption(TCP_CONGESTION_OPTION);
            byte[] bytes = new byte[value.remaining()];
            value.get(bytes);
            int end = 0;
            while (end < bytes.length && bytes[end] != 0) {
                end++;
            }
            return new String(bytes, 0, end, StandardCharsets.US_ASCII);
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** {@code /proc/sys/net/ipv4/tcp_congestion_control}, or "unknown". */
    static String systemDefaultCongestionControl() {
        try {
            return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
