package io.homa4j.bench.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * TCP echo server: frames are a 4-byte big-endian length followed by that many bytes; every frame is written
 * back unchanged (header included), flushed once per read burst. One event-loop thread accepts and serves.
 */
public final class TcpEchoServer implements BenchServer {
    private final EventLoopGroup group;
    private final Channel listener;
    private volatile String congestionControl = "no connection yet";

    private TcpEchoServer(EventLoopGroup group, Channel listener) {
        this.group = group;
        this.listener = listener;
    }

    public static TcpEchoServer start(TransportOptions options) {
        EventLoopGroup group = TcpSockets.newGroup("tcp-server");
        TcpEchoServer[] self = new TcpEchoServer[1];
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(TcpSockets.serverSocketChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        TcpSockets.useCongestionControl(ch);
                        if (self[0] != null) {
                            self[0].congestionControl = TcpSockets.congestionControlOf(ch);
                        }
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(frameLimit(options), 0, 4, 0, 0),
                                Echo.INSTANCE);
                    }
                });
        try {
            Channel listener = bootstrap.bind(options.bindAddress(), options.port()).sync().channel();
            self[0] = new TcpEchoServer(group, listener);
            return self[0];
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("TCP server cannot bind " + options.bindAddress().getHostAddress() + ":"
                    + options.port() + ": " + e, e);
        }
    }

    static int frameLimit(TransportOptions options) {
        return options.maxMessage() + 4;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    @Override
    public String describe() {
        return "tcp echo server on " + localAddress() + " (" + (TcpSockets.epoll() ? "epoll" : "nio")
                + ", TCP_NODELAY, congestion control " + congestionControl + ")";
    }

    @Override
    public String statistics() {
        return "tcp server: congestion control of accepted sockets " + congestionControl;
    }

    /** What the kernel reported for the last accepted socket, or "no connection yet". */
    public String congestionControl() {
        return congestionControl;
    }

    @Override
    public void close() {
        listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        static final Echo INSTANCE = new Echo();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object frame) {
            ctx.write(frame, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
