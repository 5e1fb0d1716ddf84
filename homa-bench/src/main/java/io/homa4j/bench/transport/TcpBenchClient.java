package io.homa4j.bench.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TCP baseline client: {@code tcpConnections} connections to every server, all on one event-loop thread. A call goes
 * on the connection to its server with the fewest outstanding bytes (a connection pool that avoids a busy
 * connection whenever an idle one exists); responses on a connection arrive in request order, so each connection
 * matches them to a FIFO of pending calls.
 */
public final class TcpBenchClient implements BenchClient {
    private static final long CONNECT_TIMEOUT_MILLIS = 5_000;

    private final EventLoopGroup group;
    private final Connection[][] connections;
    private final AtomicInteger[] nextConnection;
    private final String congestionControl;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TcpBenchClient(EventLoopGroup group, Connection[][] connections, String congestionControl) {
        this.group = group;
        this.connections = connections;
        this.congestionControl = congestionControl;
        this.nextConnection = new AtomicInteger[connections.length];
        for (int i = 0; i < connections.length; i++) {
            nextConnection[i] = new AtomicInteger();
        }
    }

    public static TcpBenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no servers");
        }
        if (options.tcpConnections() < 1) {
            throw new IllegalArgumentException("tcpConnections must be >= 1: " + options.tcpConnections());
        }
        EventLoopGroup group = TcpSockets.newGroup("tcp-client");
        Connection[][] connections = new Connection[servers.size()][options.tcpConnections()];
        String congestion = "unknown";
        try {
            List<ChannelFuture> pending = new ArrayList<>();
            for (int s = 0; s < servers.size(); s++) {
                for (int c = 0; c < options.tcpConnections(); c++) {
                    Connection connection = new Connection();
                    connections[s][c] = connection;
                    Bootstrap bootstrap = new Bootstrap()
                            .group(group)
                            .channel(TcpSockets.socketChannel())
                            .option(ChannelOption.TCP_NODELAY, true)
                            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT_MILLIS)
                            .handler(new ChannelInitializer<Channel>() {
                                @Override
                                protected void initChannel(Channel ch) {
                                    TcpSockets.useCongestionControl(ch);
                                    ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(
                                            TcpEchoServer.frameLimit(options), 0, 4, 0, 4), connection);
                                }
                            });
                    pending.add(bootstrap.connect(servers.get(s), new InetSocketAddress(options.bindAddress(), 0)));
                }
            }
            for (ChannelFuture f : pending) {
                if (!f.awaitUninterruptibly(CONNECT_TIMEOUT_MILLIS + 1_000) || !f.isSuccess()) {
                    throw new IllegalStateException("TCP connect to " + f.channel().remoteAddress() + " failed: "
                            + f.cause());
                }
            }
            congestion = TcpSockets.congestionControlOf(connections[0][0].channel);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            throw e instanceof IllegalStateException ? e : new IllegalStateException("TCP connect failed: " + e, e);
        }
        return new TcpBenchClient(group, connections, congestion);
    }

    @Override
    public CompletableFuture<Integer> call(int server, ByteBuf request) {
        CompletableFuture<Integer> future = new CompletableFuture<>();
        if (closed.get()) {
            request.release();
            future.completeExceptionally(new ClosedChannelException());
            return future;
        }
        Connection connection = leastLoaded(server);
        int length = request.readableBytes();
        connection.outstandingBytes.addAndGet(length);
        Pending call = new Pending(future, length);
        try {
            connection.channel.eventLoop().execute(() -> connection.send(call, request));
        } catch (RejectedExecutionException e) { // closed concurrently
            request.release();
            connection.outstandingBytes.addAndGet(-length);
            future.completeExceptionally(new ClosedChannelException());
        }
        return future;
    }

    private Connection leastLoaded(int server) {
        Connection[] candidates = connections[server];
        int start = Math.floorMod(nextConnection[server].getAndIncrement(), candidates.length);
        Connection best = candidates[start];
        long bestBytes = best.outstandingBytes.get();
        for (int i = 1; i < candidates.length && bestBytes > 0; i++) {
            Connection c = candidates[(start + i) % candidates.length];
            long bytes = c.outstandingBytes.get();
            if (bytes < bestBytes) {
                best = c;
                bestBytes = bytes;
            }
        }
        return best;
    }

    @Override
    public int servers() {
        return connections.length;
    }

    @Override
    public String describe() {
        return "tcp client: " + connections[0].length + " connections per server ("
                + (TcpSockets.epoll() ? "epoll" : "nio") + ", TCP_NODELAY, congestion control " + congestionControl
                + ", system default " + TcpSockets.systemDefaultCongestionControl() + ")";
    }

    /** The algorithm the kernel reports for the first connection's socket. */
    public String congestionControl() {
        return congestionControl;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Connection[] perServer : connections) {
            for (Connection c : perServer) {
                if (c.channel != null) {
                    c.channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
                }
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private record Pending(CompletableFuture<Integer> future, int length) {
    }

    /** One connection; its FIFO is touched only on the event loop. */
    private static final class Connection extends ChannelInboundHandlerAdapter {
        final AtomicLong outstandingBytes = new AtomicLong();
        final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
        volatile Channel channel;

        void send(Pending call, ByteBuf request) {
            if (!channel.isActive()) {
                request.release();
                outstandingBytes.addAndGet(-call.length);
                call.future.completeExceptionally(new ClosedChannelException());
                return;
            }
            inFlight.add(call);
            ByteBuf header = channel.alloc().ioBuffer(4).writeInt(call.length);
            channel.write(header, channel.voidPromise());
            channel.writeAndFlush(request, channel.voidPromise());
        }

        @Override
        public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
            channel = ctx.channel();
            super.channelRegistered(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            int length = frame.readableBytes();
            frame.release();
            Pending call = inFlight.poll();
            if (call == null) {
                ctx.close(); // a response nobody asked for: the stream is out of step
                return;
            }
            outstandingBytes.addAndGet(-call.length);
            call.future.complete(length);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            failAll(new ClosedChannelException());
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failAll(cause instanceof IOException ? cause : new IOException(cause));
            ctx.close();
        }

        private void failAll(Throwable cause) {
            Pending call;
            while ((call = inFlight.poll()) != null) {
                outstandingBytes.addAndGet(-call.length);
                call.future.completeExceptionally(cause);
            }
        }
    }
}
