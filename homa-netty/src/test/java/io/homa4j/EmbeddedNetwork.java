package io.homa4j;

import io.homa4j.core.HomaConfig;
import io.homa4j.transport.internal.LoopTasks;
import io.homa4j.transport.internal.UdpTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Endpoints without sockets or threads, for tests that must replay the same way every time: each
 * {@link HomaEndpoint} runs on an {@link EmbeddedChannel} (its one socket for every priority level), all share one
 * manual clock, and the datagrams one sends reach the others only when {@link #pump} hands them over. Everything
 * runs on the calling thread when the test says so: API calls and handler executors as event-loop tasks, the
 * engines' timers and "later" work when the test advances the clock. No randomness and no clock but the manual one
 * are involved, so a session's outcome depends on its inputs alone.
 *
 * <p>What this leaves out of an endpoint: the kernel (socket buffers, UDP GRO/GSO, ICMP: {@code PeerProbes} is off),
 * and every interleaving of application threads with the event loop (a task from "another thread" runs on the
 * loop, where the embedded loop says every caller is).
 *
 * <p>Ownership: datagrams in flight belong to the network; those for an address nobody holds (or a closed endpoint)
 * are released. {@link #close} closes every endpoint and releases what is still in flight.
 */
final class EmbeddedNetwork implements AutoCloseable {
    /** Where the manual clock starts: fixed, so RPC ids (taken from the clock) repeat from run to run. */
    private static final long START_NANOS = 1_000_000_000_000L;

    private final ManualTicker ticker = new ManualTicker();
    private final Map<InetSocketAddress, EmbeddedChannel> sockets = new LinkedHashMap<>();
    private final PriorityQueue<Later> later = new PriorityQueue<>();
    private final List<Runnable> executorTasks = new ArrayList<>();
    private long laterSequence;

    /** The network's clock, in {@link System#nanoTime()}'s units; moves only in {@link #advance}. */
    long nanoTime() {
        return ticker.nanoTime();
    }

    /**
     * Builds an endpoint of {@code builder} at {@code address} on this network (the builder's event loop, port and
     * transport choices do not apply).
     */
    HomaEndpoint endpoint(HomaEndpointBuilder builder, InetSocketAddress address, HomaConfig config) {
        EmbeddedChannel socket = EmbeddedChannel.builder().ticker(ticker).handlers(new LoopTasks()).build();
        sockets.put(address, socket);
        return builder.config(config).embedded(socket.eventLoop(), new EngineHost.Sockets() {
            @Override
            public UdpTransport open(ChannelHandler inbound, IntFunction<ChannelHandler> beforeInbound) {
                if (beforeInbound != null) {
                    socket.pipeline().addLast(beforeInbound.apply(0));
                }
                socket.pipeline().addLast(inbound);
                return UdpTransport.adopt(UdpTransport.Kind.NIO, socket, address, config.priorityLevels());
            }

            @Override
            public boolean kernelReachesPeers() {
                return false;
            }
        }, ticker::nanoTime).build();
    }

    /** A loopback address with {@code port}, for an endpoint or a forger. */
    static InetSocketAddress address(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /**
     * Runs {@code work} as the event loop of the endpoint at {@code at} runs a task: inside a channel operation,
     * so the embedded loop does not run its other tasks (the engine driver's end of turn) in the middle of it, as a
     * real loop never runs one task inside another. An exception {@code work} throws is rethrown here.
     */
    void onLoop(InetSocketAddress at, Runnable work) {
        EmbeddedChannel socket = sockets.get(at);
        if (socket == null || !socket.isOpen()) {
            work.run(); // the loop is gone: what the API does then, it does on the caller's thread
            return;
        }
        RuntimeException[] thrown = new RuntimeException[1];
        Error[] error = new Error[1];
        socket.writeInbound((Runnable) () -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                thrown[0] = e;
            } catch (Error e) {
                error[0] = e;
            }
        });
        if (thrown[0] != null) {
            throw thrown[0];
        }
        if (error[0] != null) {
            throw error[0];
        }
    }

    /**
     * Runs {@code work} (the loop's own pending or scheduled tasks) inside a channel operation, where the embedded
     * channel does not start running pending tasks again on the first write a task makes: that would run the
     * engine driver's end of turn, and so the engine, inside the engine.
     */
    private static long asTask(EmbeddedChannel socket, LongSupplier work) {
        if (!socket.isOpen()) {
            return work.getAsLong();
        }
        long[] result = new long[1];
        socket.writeInbound((Runnable) () -> result[0] = work.getAsLong());
        return result[0];
    }

    /** An executor for handlers "on another thread": its tasks run, in order, in {@link #pump}, as loop tasks. */
    Executor executorOf(InetSocketAddress endpoint) {
        return task -> executorTasks.add(() -> onLoop(endpoint, task));
    }

    /** Runs {@code task} once the clock has moved on by {@code delayNanos} (in {@link #advance}). */
    void later(long delayNanos, Runnable task) {
        later.add(new Later(nanoTime() + Math.max(0, delayNanos), laterSequence++, task));
    }

    /** Sends a datagram from {@code from} (any address, an endpoint's or not) to {@code to}; takes {@code content}. */
    void send(InetSocketAddress from, InetSocketAddress to, ByteBuf content) {
        EmbeddedChannel socket = sockets.get(to);
        if (socket == null || !socket.isOpen()) {
            content.release();
            return;
        }
        socket.writeInbound(new DatagramPacket(content, to, from));
    }

    /**
     * Delivers every datagram sent so far, runs the loops' pending tasks and the executors' tasks, and repeats
     * until nothing is left to do at this instant.
     */
    void pump() {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (Map.Entry<InetSocketAddress, EmbeddedChannel> e : sockets.entrySet()) {
                EmbeddedChannel socket = e.getValue();
                asTask(socket, () -> {
                    socket.runPendingTasks();
                    return 0;
                });
                for (Object o; (o = socket.readOutbound()) != null; ) {
                    moved = true;
                    if (o instanceof DatagramPacket p) {
                        send(e.getKey(), p.recipient(), p.content());
                    } else {
                        ReferenceCountUtil.release(o);
                    }
                }
            }
            if (!executorTasks.isEmpty()) {
                moved = true;
                List<Runnable> tasks = new ArrayList<>(executorTasks);
                executorTasks.clear();
                tasks.forEach(Runnable::run);
            }
        }
    }

    /**
     * Moves the clock on by {@code nanos}, stopping at every instant where a timer or a "later" task is due to run
     * it (and {@link #pump} after it).
     */
    void advance(long nanos) {
        long end = nanoTime() + nanos;
        pump();
        while (true) {
            long next = end;
            for (EmbeddedChannel socket : sockets.values()) {
                long in = asTask(socket, socket::runScheduledPendingTasks); // runs what is due; the next's delay
                if (in >= 0) {
                    next = Math.min(next, nanoTime() + in);
                }
            }
            Later first = later.peek();
            if (first != null && first.dueNanos <= nanoTime()) {
                later.poll().task.run();
                pump();
                continue;
            }
            if (first != null) {
                next = Math.min(next, first.dueNanos);
            }
            pump();
            if (nanoTime() >= end) {
                return;
            }
            ticker.advance(Math.max(1, next - nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Moves the clock on by {@code nanos} and runs nothing: a handler that blocks its thread for that long. (Time
     * passes; what falls due runs at the next {@link #advance}.)
     */
    void elapse(long nanos) {
        ticker.advance(nanos, TimeUnit.NANOSECONDS);
    }

    /** Whether the loop of the endpoint at {@code at} has a timer armed (after running what is due now). */
    boolean hasTimer(InetSocketAddress at) {
        EmbeddedChannel socket = sockets.get(at);
        return asTask(socket, socket::runScheduledPendingTasks) >= 0;
    }

    /** Advances the clock until {@code done} holds or {@code maxNanos} passed; returns {@code done}'s last answer. */
    boolean advanceUntil(BooleanSupplier done, long maxNanos, long stepNanos) {
        long end = nanoTime() + maxNanos;
        pump();
        while (!done.getAsBoolean() && nanoTime() < end) {
            advance(Math.min(stepNanos, end - nanoTime()));
        }
        return done.getAsBoolean();
    }

    /** Runs every "later" task still waiting, each at its time. */
    void runAllLater() {
        while (!later.isEmpty()) {
            advance(Math.max(0, later.peek().dueNanos - nanoTime()));
        }
    }

    /** Releases every datagram still in flight and closes the sockets (the endpoints must be closed first). */
    @Override
    public void close() {
        for (EmbeddedChannel socket : sockets.values()) {
            socket.finishAndReleaseAll();
        }
    }

    private record Later(long dueNanos, long sequence, Runnable task) implements Comparable<Later> {
        @Override
        public int compareTo(Later o) {
            int byTime = Long.compare(dueNanos, o.dueNanos);
            return byTime != 0 ? byTime : Long.compare(sequence, o.sequence);
        }
    }

    /** A clock that moves only when told; fixed start. */
    private static final class ManualTicker implements MockTicker {
        private long now = START_NANOS;

        @Override
        public long initialNanoTime() {
            return START_NANOS;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void advance(long amount, TimeUnit unit) {
            now += unit.toNanos(amount);
        }

        @Override
        public void sleep(long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("nothing sleeps on a manual clock");
        }
    }
}
