package io.homa4j.transport.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzz target (Jazzer) for the endpoint's API misuse and hostile datagrams together, through the
 * Netty transport: a real {@link HomaEngine} behind {@link HomaInboundHandler}, {@link EngineDriver} and
 * {@link DatagramSink} on an {@link EmbeddedChannel}, calling itself (its datagrams loop back), with a manual
 * clock that also drives the loop's timers. Each input is a session of up to 64 steps, every choice taken from the
 * input: calls with good, already-released, released-after, shrunk-after and oversized request buffers; a handler
 * that echoes, never replies, replies with a buffer it then releases or shrinks, fails, or throws; aborts;
 * delivery of the looped-back datagrams dropped, duplicated or bit-flipped; forged datagrams; clock advances that
 * run the timers.
 *
 * <p>Asserted after every step: nothing escapes, no INTERNAL_ERROR drop. At the end: every call ended exactly
 * once (with a response or a typed failure; none for aborted calls), and after close every byte the engine and
 * the session allocated was released. Issue 16's findings (a released request or reply breaking the endpoint,
 * an OutOfMemoryError or exception escaping) are what it looks for.
 */
class TransportFuzzTest {
    private static final InetSocketAddress SELF = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000);
    private static final InetSocketAddress FORGER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4001);
    private static final int MAX_STEPS = 64;
    private static final HomaConfig CONFIG = HomaConfig.builder().maxMessageBytes(100_000).handlerTimeoutTicks(50)
            .abortTicks(200).maxBufferedBytesTotal(1 << 20).build();

    @FuzzTest(maxDuration = "5s")
    void transportSession(FuzzedDataProvider data) {
        new Session(data).run();
    }

    private static final class Session implements RpcListener {
        private final FuzzedDataProvider data;
        /** Everything the engine and this session allocate: its counters prove that all of it was released. */
        private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
        private final EmbeddedChannel channel = new EmbeddedChannel();
        private long now = 1_000_000_000L;
        private final HomaEngine engine;
        private final Map<Long, Boolean> open = new HashMap<>();
        private final Map<Long, ByteBuf> held = new HashMap<>();
        private final List<ByteBuf> seen = new ArrayList<>();
        private int handlerChoice;

        Session(FuzzedDataProvider data) {
            this.data = data;
            // The loop's timers (the driver's wake-ups) follow the session's clock, not the machine's: with real
            // time they fired wherever a slow or loaded machine let them, so a finding could not be replayed.
            channel.freezeTime();
            TransportCounters counters = new TransportCounters();
            EngineDriver driver = new EngineDriver(channel.eventLoop(), () -> now, counters);
            channel.pipeline().addLast(new LoopTasks(), new HomaInboundHandler(driver, counters,
                    CONFIG.maxUdpPayload()));
            DatagramSink sink = new DatagramSink(new Channel[] {channel}, counters, null);
            engine = new HomaEngine(CONFIG, sink, this, alloc, now);
            driver.attach(engine, sink);
        }

        void run() {
            try {
                for (int step = 0; step < MAX_STEPS && data.remainingBytes() > 0; step++) {
                    switch (data.consumeInt(0, 6)) {
                        case 0 -> call();
                        case 1 -> deliver();
                        case 2 -> forge();
                        case 3 -> advance();
                        case 4 -> abortOne();
                        case 5 -> replyHeld();
                        default -> handlerChoice = data.consumeInt(0, 5);
                    }
                    assertEquals(0, engine.metrics().drops(DropReason.INTERNAL_ERROR), "no processing bug");
                }
                for (int i = 0; i < 2_000 && !open.isEmpty(); i++) { // let every call end by itself
                    deliver();
                    advance(CONFIG.tickNanos());
                }
                assertTrue(open.isEmpty(), () -> "calls that never ended: " + open.keySet());
            } finally {
                engine.close(now);
                held.values().forEach(ReferenceCountUtil::release);
                drainOutbound();
                channel.finishAndReleaseAll();
            }
            MetricsSnapshot m = engine.metrics();
            assertEquals(0, m.clientRpcs() + m.serverRpcs());
            assertEquals(0, alloc.metric().usedHeapMemory(), "every heap buffer was released");
            assertEquals(0, alloc.metric().usedDirectMemory(), "every direct buffer was released");
        }

        private ByteBuf payload() {
            int length = data.consumeInt(0, 120_000); // a bit beyond maxMessageBytes
            ByteBuf b = alloc.buffer(length);
            b.writeBytes(data.consumeBytes(Math.min(length, 64)));
            b.writerIndex(length);
            return b;
        }

        private void call() {
            ByteBuf request = payload();
            int misuse = data.consumeInt(0, 3);
            if (misuse == 1) {
                request.release();
            }
            try {
                long deadline = data.consumeBoolean() ? now + data.consumeLong(0, 500_000_000L) : Long.MAX_VALUE;
                // Registered in the same loop task that starts the call, as the endpoint does: the loop's next
                // tasks (the driver's wake-up) may end the call before the harness would otherwise see its id.
                onLoop(() -> open.put(engine.call(SELF, request, deadline, now), Boolean.TRUE));
            } catch (RpcRejectedException rejected) {
                return; // typed, and nothing left behind (checked at the end)
            }
            if (misuse == 2 && request.refCnt() > 0) {
                // The misuse of releasing a handed-over buffer; when the call already ended in the loop task that
                // started it (a deadline of now), the engine has released it and nothing is left to misuse.
                request.release();
            } else if (misuse == 3 && request.refCnt() > 0 && request.capacity() > 10) {
                request.capacity(data.consumeInt(0, request.capacity() - 1));
            }
        }

        private void drainOutbound() {
            for (Object o; (o = channel.readOutbound()) != null; ) {
                ReferenceCountUtil.release(o);
            }
        }

        /** Loops what the engine sent back into it, each datagram dropped, duplicated or bit-flipped at will. */
        private void deliver() {
            List<DatagramPacket> out = new ArrayList<>();
            for (Object o; (o = channel.readOutbound()) != null; ) {
                out.add((DatagramPacket) o);
            }
            for (DatagramPacket p : out) {
                ByteBuf content = p.content();
                int fate = data.remainingBytes() > 0 ? data.consumeInt(0, 7) : 0;
                if (fate == 1) {
                    p.release();
                    continue;
                }
                if (fate == 2) {
                    channel.writeInbound(new DatagramPacket(content.retainedDuplicate(), SELF, SELF));
                } else if (fate == 3 && content.isReadable()) {
                    int at = content.readerIndex() + data.consumeInt(0, content.readableBytes() - 1);
                    content.setByte(at, content.getByte(at) ^ (1 << data.consumeInt(0, 7)));
                }
                channel.writeInbound(new DatagramPacket(content, SELF, SELF));
            }
        }

        private void forge() {
            ByteBuf b = alloc.buffer();
            b.writeBytes(data.consumeBytes(data.consumeInt(0, 200)));
            channel.writeInbound(new DatagramPacket(b, SELF, data.consumeBoolean() ? FORGER : SELF));
        }

        private void advance() {
            advance(data.consumeLong(0, 50_000_000L));
        }

        private void advance(long nanos) {
            now += nanos;
            channel.advanceTimeBy(nanos, TimeUnit.NANOSECONDS); // due wake-ups run at the loop's next turn
            onLoop(() -> engine.poll(now));
        }

        private void abortOne() {
            if (!open.isEmpty()) {
                long id = open.keySet().iterator().next();
                open.remove(id);
                onLoop(() -> engine.abort(id, now));
            }
        }

        private void replyHeld() {
            if (!held.isEmpty()) {
                long handle = held.keySet().iterator().next();
                ByteBuf response = held.remove(handle);
                onLoop(() -> engine.reply(handle, response, now));
            }
        }

        /**
         * Runs {@code work} as the event loop runs a task: inside a channel operation, so the embedded channel does
         * not run its pending tasks (the driver's wake-ups) in the middle of it, on the first write the engine
         * makes. A real event loop never runs a task inside another; calling the engine bare would fuzz a
         * re-entrance that production cannot reach.
         */
        private void onLoop(Runnable work) {
            RuntimeException[] thrown = new RuntimeException[1];
            channel.writeInbound((Runnable) () -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    thrown[0] = e; // rethrown to the harness below, as the API would throw it to its caller
                }
            });
            if (thrown[0] != null) {
                throw thrown[0];
            }
        }

        @Override
        public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
            switch (handlerChoice) {
                case 0 -> engine.reply(serverHandle, request, now);
                case 1 -> held.put(serverHandle, request); // never replies (until replyHeld)
                case 2 -> {
                    ByteBuf copy = alloc.buffer().writeBytes(request);
                    request.release();
                    engine.reply(serverHandle, copy, now);
                    copy.release(); // the misuse of issue 16.2
                }
                case 3 -> {
                    ByteBuf copy = alloc.buffer().writeBytes(request);
                    request.release();
                    engine.reply(serverHandle, copy, now);
                    if (copy.capacity() > 1) {
                        copy.capacity(1);
                    }
                }
                case 4 -> {
                    request.release();
                    engine.replyError(serverHandle, "handler failed", now);
                }
                default -> {
                    request.release();
                    throw new IllegalStateException("a handler that throws");
                }
            }
        }

        @Override
        public void onResponse(long rpcId, ByteBuf response) {
            response.release();
            assertTrue(open.remove(rpcId) != null, "one outcome per call, and only for open calls");
        }

        @Override
        public void onCallFailed(long rpcId, RpcFailure failure) {
            assertTrue(failure.code() != null);
            assertTrue(open.remove(rpcId) != null, "one outcome per call, and only for open calls");
        }
    }
}
