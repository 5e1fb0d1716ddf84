package io.homa4j;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.homa4j.core.Engine;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.PacketBatch;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketEncoder;
import io.homa4j.testing.FailingAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Coverage-guided fuzz target (Jazzer) for the public endpoint API, where issue 16's bugs were: two
 * {@link HomaEndpoint}s with real engines, each on an embedded channel of an {@link EmbeddedNetwork} (no sockets,
 * no threads, one manual clock), driven by a session of up to 40 steps, every choice taken from the fuzzer's input:
 * <ul>
 *   <li>calls ({@code call} with a buffer or an array, {@code callForResponse} with headers; default, no, short or
 *       past deadlines) whose request buffer is good, already released, released or shrunk or written to after the
 *       call returned (while the endpoint still sends it), handed to two calls at once, a slice of a buffer
 *       released behind it, or oversized;</li>
 *   <li>the handler's behaviour, chosen by the request's first byte: echo, echo with headers, reply and then release
 *       or shrink the reply, reply with a released buffer, never reply, reply twice, throw an exception or an
 *       {@code Error}, fail with a status (0 is invalid), reply later, block (the clock moves on), reply oversized,
 *       call its own endpoint and reply with that call's outcome, reply only once cancelled; on the event loop or
 *       on an executor;</li>
 *   <li>cancellations, graceful shutdowns and closes of either endpoint at any point;</li>
 *   <li>hostile datagrams from a third address to either endpoint: random bytes, and packets of every type built
 *       with the engine's own encoder (requests claiming huge lengths, ghost GRANTs, RESENDs, ACKs...);</li>
 *   <li>allocation failures: the engines' allocator throws {@link OutOfMemoryError} above a size, as Netty does at
 *       its direct-memory limit;</li>
 *   <li>time: the clock moves on by a step's choice, or until a call ends.</li>
 * </ul>
 * Asserted at the end of each session: every call ended, with a response (byte-exact for an echo of a good
 * buffer) or a {@link HomaException} (or a cancellation we asked for), within 20 s of the clock: none hangs; no
 * INTERNAL_ERROR drop; an endpoint that the session did not close still answers a plain call; and, once both are
 * closed and every handler returned, every byte the engines and the session allocated was released.
 *
 * <p>A session runs on the test's thread alone, so an input replays the same way every time: the checked-in
 * inputs (findings included) replay in every build, and the build fuzzes the target for a few seconds. What an
 * embedded network leaves out (the kernel, application threads racing the event loop) is in
 * {@link EmbeddedNetwork}; {@code HomaEndToEndTest}, {@code MisuseTest} and the others cover it over UDP.
 */
class EndpointFuzzTest {
    /** The application's message limit of both endpoints; requests and replies go a little beyond it. */
    private static final int MAX_MESSAGE = 100_000;
    private static final int MAX_STEPS = 40;
    /** How long every call of a session may take to end once the session stopped making them: beyond is a hang. */
    private static final long END_BOUND_SECONDS = 20;
    private static final HomaConfig CONFIG = HomaConfig.builder().maxMessageBytes(MAX_MESSAGE)
            .handlerTimeoutTicks(150).abortTicks(300).maxBufferedBytesTotal(4 << 20).build();

    private static final InetSocketAddress SERVER = EmbeddedNetwork.address(40_001);
    private static final InetSocketAddress CLIENT = EmbeddedNetwork.address(40_002);
    private static final InetSocketAddress FORGER = EmbeddedNetwork.address(40_003);
    private static final long MS = 1_000_000;

    @FuzzTest(maxDuration = "5s")
    void endpointSession(FuzzedDataProvider data) throws Exception {
        try (Session session = new Session(data)) {
            session.run();
        }
    }

    /**
     * What the regression replays rely on: an input makes the same session every time, down to every call's
     * outcome and the engines' packet counts (run twice, compared).
     */
    @Test
    void aSessionReplaysTheSameWayTwice() throws Exception {
        Path inputs = Path.of("src/test/resources/io/homa4j/EndpointFuzzTestInputs/endpointSession");
        List<Path> files;
        try (Stream<Path> listed = Files.list(inputs)) {
            files = listed.sorted().toList();
        }
        assertFalse(files.isEmpty(), "regression inputs in " + inputs.toAbsolutePath());
        for (Path file : files) {
            byte[] input = Files.readAllBytes(file);
            assertEquals(transcript(input), transcript(input), "two replays of " + file.getFileName());
        }
    }

    private static String transcript(byte[] input) throws Exception {
        try (Session session = new Session(bytesOf(input))) {
            session.run();
            return session.transcript();
        }
    }

    /**
     * The choices a session asks for, read from {@code input} in order (Jazzer's own provider reads the same input
     * differently and needs its native library, which runs only under the fuzzing engine): a replay outside Jazzer.
     */
    private static FuzzedDataProvider bytesOf(byte[] input) {
        ByteBuffer in = ByteBuffer.wrap(input);
        return (FuzzedDataProvider) Proxy.newProxyInstance(FuzzedDataProvider.class.getClassLoader(),
                new Class<?>[] {FuzzedDataProvider.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "remainingBytes" -> in.remaining();
                    case "consumeBoolean" -> (next(in, 1) & 1) == 1;
                    case "consumeInt" -> args == null ? (int) next(in, 4)
                            : (int) ((int) args[0] + Long.remainderUnsigned(next(in, 4),
                                    (long) (int) args[1] - (int) args[0] + 1));
                    case "consumeLong" -> next(in, 8);
                    case "consumeBytes" -> {
                        byte[] b = new byte[Math.min((int) args[0], in.remaining())];
                        in.get(b);
                        yield b;
                    }
                    case "consumeString" -> {
                        byte[] b = new byte[Math.min((int) args[0], in.remaining())];
                        in.get(b);
                        yield new String(b, StandardCharsets.ISO_8859_1);
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The next {@code bytes} bytes as an unsigned number; zeros once the input is used up. */
    private static long next(ByteBuffer in, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes && in.hasRemaining(); i++) {
            v = v << 8 | (in.get() & 0xFF);
        }
        return v;
    }

    /** What the handler does with a request, by the request's first byte. */
    private enum HandlerMode {
        ECHO, ECHO_WITH_HEADERS, REPLY_THEN_RELEASE, REPLY_THEN_SHRINK, REPLY_RELEASED, NEVER_REPLY, REPLY_TWICE,
        THROW, THROW_ERROR, FAIL_WITH_STATUS, REPLY_LATER, BLOCK_THEN_ECHO, REPLY_OVERSIZED, CALL_ITSELF,
        REPLY_WHEN_CANCELLED;

        static final HandlerMode[] ALL = values();
    }

    /** How the session misuses a request buffer. */
    private enum RequestMisuse {
        NONE, RELEASED_BEFORE, RELEASED_AFTER, SHRUNK_AFTER, WRITTEN_AFTER, TWO_CALLS, SLICE_OF_RELEASED
    }

    /** One call the session made, and what it may end with. */
    private record Call(CompletableFuture<?> future, byte[] expectedEcho, boolean cancelledByUs, String what) {
        Call cancelled() {
            return new Call(future, expectedEcho, true, what);
        }
    }

    /**
     * The engine as the endpoint drives it, with every exception that escapes it written down before it goes on
     * to the driver (which logs it and carries on, so a session could not see it otherwise).
     */
    private static final class WatchedEngine implements Engine {
        private final Engine engine;
        private final List<RuntimeException> escaped;

        WatchedEngine(Engine engine, List<RuntimeException> escaped) {
            this.engine = engine;
            this.escaped = escaped;
        }

        private <T> T watch(Supplier<T> work) {
            try {
                return work.get();
            } catch (RpcRejectedException typed) {
                throw typed; // call()'s refusal: part of the contract
            } catch (RuntimeException e) {
                escaped.add(e);
                throw e;
            }
        }

        private void watch(Runnable work) {
            watch(() -> {
                work.run();
                return null;
            });
        }

        @Override
        public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
            return watch(() -> engine.call(server, request, deadlineNanos, nowNanos));
        }

        @Override
        public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
            return watch(() -> engine.reply(serverHandle, response, nowNanos));
        }

        @Override
        public boolean replyError(long serverHandle, String message, long nowNanos) {
            return watch(() -> engine.replyError(serverHandle, message, nowNanos));
        }

        @Override
        public void abort(long rpcId, long nowNanos) {
            watch(() -> engine.abort(rpcId, nowNanos));
        }

        @Override
        public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
            watch(() -> engine.onPacket(from, packet, nowNanos));
        }

        @Override
        public void onPackets(PacketBatch batch, long nowNanos) {
            watch(() -> engine.onPackets(batch, nowNanos));
        }

        @Override
        public void poll(long nowNanos) {
            watch(() -> engine.poll(nowNanos));
        }

        @Override
        public long nextWakeNanos() {
            return watch(engine::nextWakeNanos);
        }

        @Override
        public long wakeByNanos() {
            return watch(engine::wakeByNanos);
        }

        @Override
        public void close(long nowNanos) {
            watch(() -> engine.close(nowNanos));
        }

        @Override
        public MetricsSnapshot metrics() {
            return watch(engine::metrics);
        }

        @Override
        public boolean peerHeardSince(InetSocketAddress peer, long sinceNanos) {
            return watch(() -> engine.peerHeardSince(peer, sinceNanos));
        }

        @Override
        public int peerRpcCount(InetSocketAddress peer) {
            return watch(() -> engine.peerRpcCount(peer));
        }

        @Override
        public int peerUnreachable(InetSocketAddress server, long probeSentNanos, long nowNanos) {
            return watch(() -> engine.peerUnreachable(server, probeSentNanos, nowNanos));
        }
    }

    private static final class Session implements AutoCloseable {
        private final FuzzedDataProvider data;
        private final EmbeddedNetwork net = new EmbeddedNetwork();
        private final FailingAllocator engineAlloc = new FailingAllocator();
        /** The session's and its handlers' own buffers. */
        private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
        private final HomaEndpoint server;
        private final HomaEndpoint client;
        private final PacketEncoder encoder = new PacketEncoder(UnpooledByteBufAllocator.DEFAULT);
        private final List<Call> calls = new ArrayList<>();
        /** Calls whose response {@link #checkOutcome} took (and released). */
        private final Set<CompletableFuture<?>> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Handlers still running or holding a request for a later reply: they hold engine buffers. */
        private int handlersBusy;
        private final List<Throwable> handlerSurprises = new ArrayList<>();
        /** Exceptions that escaped an engine: each one a bug the endpoint would only have logged. */
        private final List<RuntimeException> escaped = new ArrayList<>();
        /** What the session did, for the message of a failed check. */
        private final List<String> steps = new ArrayList<>();
        /** How each call ended and what the engines counted, for {@link #transcript}. */
        private final List<String> outcomes = new ArrayList<>();

        Session(FuzzedDataProvider data) {
            this.data = data;
            HomaEndpointBuilder builder = HomaEndpoint.builder()
                    .engineFactory((config, sink, listener, nowNanos) -> new WatchedEngine(
                            EngineHost.EngineFactory.homa(engineAlloc).create(config, sink, listener, nowNanos), escaped))
                    .defaultCallTimeout(Duration.ofMillis(200)).metricsInterval(Duration.ofMillis(10));
            server = net.endpoint(builder, SERVER, CONFIG);
            client = net.endpoint(builder, CLIENT, CONFIG);
            if (data.consumeBoolean()) {
                server.serve(this::handle);
            } else {
                server.serve(this::handle, net.executorOf(SERVER));
            }
        }

        void run() throws Exception {
            for (int step = 0; step < MAX_STEPS && data.remainingBytes() > 0; step++) {
                switch (data.consumeInt(0, 8)) {
                    case 0, 1 -> call();
                    case 2 -> cancelOne();
                    case 3 -> forge();
                    case 4 -> {
                        engineAlloc.failAbove(data.consumeBoolean() ? Integer.MAX_VALUE : data.consumeInt(0, 300_000));
                        steps.add("allocations fail above " + engineAlloc.failAbove());
                    }
                    case 5 -> {
                        long ms = data.consumeInt(0, 20);
                        steps.add("time passes: " + ms + " ms");
                        net.advance(ms * MS);
                    }
                    case 6 -> endOne();
                    case 7 -> awaitOne();
                    default -> callFromAnotherThread();
                }
                net.pump();
            }
            engineAlloc.failAbove(Integer.MAX_VALUE);
            net.advanceUntil(() -> calls.stream().allMatch(c -> c.future.isDone()),
                    TimeUnit.SECONDS.toNanos(END_BOUND_SECONDS), 10 * MS);
            for (Call call : calls) {
                checkOutcome(call);
            }
            checkStillServing();
            for (HomaEndpoint e : new HomaEndpoint[] {client, server}) {
                if (!e.isClosed()) {
                    assertEquals(0, e.metricsNow().getNow(null).drops(DropReason.INTERNAL_ERROR),
                            "no processing bug");
                }
            }
            closeAll();
            for (HomaEndpoint e : new HomaEndpoint[] {client, server}) {
                MetricsSnapshot m = e.metrics();
                outcomes.add(e.localAddress().getPort() + ": packets in " + m.totalPacketsIn() + ", out " + m.totalPacketsOut()
                        + ", bytes in " + m.bytesIn()
                        + ", at " + net.nanoTime());
                assertEquals(0, m.drops(DropReason.INTERNAL_ERROR), "no processing bug");
                assertEquals(0, m.clientRpcs() + m.serverRpcs(), "close frees every RPC");
            }
            net.runAllLater(); // handlers that reply later still do, to endpoints now closed
            assertTrue(escaped.isEmpty(), () -> "exceptions escaped the engine: " + escaped + "; session:\n  "
                    + String.join("\n  ", steps));
            assertEquals(0, handlersBusy, "every handler returned");
            assertTrue(handlerSurprises.isEmpty(), () -> "the API threw unexpectedly: " + handlerSurprises);
            net.close();
            assertEquals(0, engineAlloc.used(), "the engines released every buffer they allocated");
            assertEquals(0, alloc.metric().usedHeapMemory(), "every request and reply buffer was released");
        }

        // ---- steps ----

        private ByteBuf requestBuffer(int length, HandlerMode mode, int parameter) {
            ByteBuf b = alloc.heapBuffer(length);
            if (length > 0) {
                b.writeByte(mode.ordinal());
            }
            if (length > 1) {
                b.writeByte(parameter);
            }
            b.writeBytes(data.consumeBytes(Math.min(length - b.writerIndex(), 32)));
            b.writerIndex(length); // the rest is zeros
            return b;
        }

        private CallOptions options() {
            return switch (data.consumeInt(0, 4)) {
                case 0 -> CallOptions.DEFAULT;
                case 1 -> CallOptions.NO_DEADLINE;
                case 2 -> CallOptions.timeout(Duration.ofMillis(data.consumeInt(1, 300)));
                case 3 -> CallOptions.deadlineNanos(net.nanoTime() - data.consumeInt(0, 1_000_000));
                default -> CallOptions.timeout(Duration.ofMillis(data.consumeInt(1, 300)))
                        .withMetadata(Metadata.of("k", data.consumeString(40)));
            };
        }

        private InetSocketAddress target() {
            return data.consumeInt(0, 7) == 0 ? client.localAddress() : server.localAddress(); // client: no handler
        }

        private void call() {
            HandlerMode mode = HandlerMode.ALL[data.consumeInt(0, HandlerMode.ALL.length - 1)];
            int parameter = data.consumeInt(0, 255);
            int length = data.consumeBoolean() ? data.consumeInt(0, 3_000) : data.consumeInt(0, MAX_MESSAGE + 2_000);
            RequestMisuse misuse = data.consumeBoolean() ? RequestMisuse.NONE
                    : RequestMisuse.values()[data.consumeInt(0, RequestMisuse.values().length - 1)];
            InetSocketAddress to = target();
            CallOptions options = options();
            int api = data.consumeInt(0, 2);
            ByteBuf request = requestBuffer(length, mode, parameter);
            String describe = "call #" + calls.size() + " api " + api + " " + length + " B to "
                    + (to == server.localAddress() ? "server" : "client") + ", handler " + mode + "(" + parameter
                    + "), misuse " + misuse + ", " + options + ", allocations fail above " + engineAlloc.failAbove();
            byte[] expected = misuse == RequestMisuse.NONE && mode == HandlerMode.ECHO && to == server.localAddress()
                    ? ByteBufUtil.getBytes(request) : null;
            if (api == 2) { // the array form: no buffer to misuse
                byte[] bytes = ByteBufUtil.getBytes(request);
                request.release();
                record(() -> client.call(to, bytes, options), expected, describe);
                return;
            }
            ByteBuf sent = request;
            switch (misuse) {
                case RELEASED_BEFORE -> request.release();
                case SLICE_OF_RELEASED -> {
                    sent = request.retainedSlice(0, length / 2);
                    request.release();
                }
                default -> { }
            }
            ByteBuf finalSent = sent;
            CompletableFuture<?> f = record(() -> api == 0 ? client.call(to, finalSent, options)
                    : client.callForResponse(to, finalSent, options), expected, describe);
            if (misuse == RequestMisuse.RELEASED_BEFORE) {
                if (f != null) {
                    fail("a released request buffer was accepted");
                }
                return;
            }
            switch (misuse) {
                case RELEASED_AFTER -> ReferenceCountUtil.safeRelease(request);
                case SHRUNK_AFTER -> {
                    try {
                        request.capacity(Math.min(request.capacity(), data.consumeInt(0, 64)));
                    } catch (RuntimeException releasedMeanwhile) {
                        // the endpoint may have sent and released it already: the misuse then finds nothing
                    }
                }
                case WRITTEN_AFTER -> {
                    try {
                        request.setBytes(0, data.consumeBytes(Math.min(length, 16)));
                    } catch (RuntimeException releasedMeanwhile) {
                        // as above
                    }
                }
                case TWO_CALLS -> record(() -> client.call(to, request, options), null, describe + " (second)");
                default -> { }
            }
        }

        /**
         * Makes a call as the application's thread would, here the client's event loop (an embedded loop takes
         * every caller for its own), and keeps its future; an argument error thrown at once is the typed refusal
         * of a misuse. Returns the future, or null when the call was refused.
         */
        private CompletableFuture<?> record(Supplier<CompletableFuture<?>> start, byte[] echo, String what) {
            List<CompletableFuture<?>> started = new ArrayList<>(1);
            try {
                net.onLoop(CLIENT, () -> started.add(start.get()));
            } catch (IllegalArgumentException | IllegalStateException refused) {
                steps.add(what + ": refused (" + refused.getMessage() + ")");
                return null;
            }
            CompletableFuture<?> f = started.get(0);
            calls.add(new Call(f, echo, false, what));
            steps.add(what);
            return f;
        }

        /** Was a call from another thread over UDP; on an embedded network every caller is on the loop. */
        private void callFromAnotherThread() {
            byte[] echo = {(byte) HandlerMode.ECHO.ordinal(), 0, 1, 2};
            record(() -> client.call(server.localAddress(), echo.clone(), CallOptions.DEFAULT), echo,
                    "call #" + calls.size() + " (the one from another thread over UDP)");
        }

        private void cancelOne() {
            if (!calls.isEmpty()) {
                int i = data.consumeInt(0, calls.size() - 1);
                Call call = calls.get(i);
                steps.add("cancel call #" + i);
                boolean[] cancelled = new boolean[1];
                net.onLoop(CLIENT, () -> cancelled[0] = call.future.cancel(true));
                if (cancelled[0]) {
                    calls.set(i, call.cancelled());
                }
            }
        }

        /** Lets the clock run until a call ends, for at most 500 ms. */
        private void awaitOne() {
            if (!calls.isEmpty()) {
                int i = data.consumeInt(0, calls.size() - 1);
                steps.add("await call #" + i);
                net.advanceUntil(calls.get(i).future::isDone, 500 * MS, MS);
            }
        }

        private void endOne() {
            HomaEndpoint e = data.consumeBoolean() ? client : server;
            int how = data.consumeInt(0, 2);
            steps.add((how == 0 ? "shutdown " : "close ") + (e == client ? "client" : "server"));
            InetSocketAddress at = e.localAddress();
            switch (how) {
                case 0 -> {
                    Duration grace = Duration.ofMillis(data.consumeInt(0, 100));
                    net.onLoop(at, () -> e.shutdown(grace));
                }
                case 1 -> net.onLoop(at, e::close);
                default -> net.onLoop(at, () -> {
                    e.shutdown(Duration.ZERO);
                    e.close();
                });
            }
        }

        /** A datagram from a third address: random bytes, or a packet of any type with fields from the input. */
        private void forge() {
            InetSocketAddress to = data.consumeBoolean() ? server.localAddress() : client.localAddress();
            long id = data.consumeBoolean() ? 2L * data.consumeInt(1, 50) : data.consumeLong();
            ByteBuf packet = switch (data.consumeInt(0, 8)) {
                case 0 -> Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(0, 1_500)));
                case 1 -> {
                    int length = data.consumeBoolean() ? data.consumeInt(0, 3_000) : data.consumeInt();
                    int offset = data.consumeInt(0, Math.max(0, Math.min(length, 200_000)));
                    int segment = data.consumeInt(0, 1_400);
                    ByteBuf payload = Unpooled.buffer(offset + segment);
                    payload.writeByte(data.consumeInt(0, HandlerMode.ALL.length - 1)); // the handler's mode
                    payload.writerIndex(payload.capacity());
                    try {
                        yield encoder.data(id, length, offset, data.consumeInt(), data.consumeInt(0, 3),
                                data.consumeInt(0, 7), data.consumeBoolean() ? 0 : data.consumeLong(), payload,
                                segment);
                    } catch (RuntimeException refusedByTheEncoder) {
                        yield null; // the encoder checks its arguments: such a packet cannot be built this way
                    } finally {
                        payload.release();
                    }
                }
                case 2 -> encoder.grant(id, data.consumeInt(), data.consumeInt(0, 7));
                case 3 -> encoder.resend(id, data.consumeInt(), data.consumeInt(), data.consumeInt(0, 7));
                case 4 -> encoder.rpcUnknown(id, data.consumeLong());
                case 5 -> encoder.busy(id);
                case 6 -> encoder.needAck(id);
                case 7 -> {
                    long[] ids = new long[data.consumeInt(1, 8)];
                    Arrays.setAll(ids, i -> data.consumeLong());
                    yield encoder.ack(id, ids, ids.length);
                }
                default -> {
                    int[] cutoffs = new int[8];
                    Arrays.setAll(cutoffs, i -> data.consumeInt());
                    yield encoder.cutoffs(cutoffs, data.consumeInt(0, 65_535));
                }
            };
            if (packet == null) {
                return;
            }
            try {
                if (data.consumeBoolean() && packet.readableBytes() > 0) { // one flipped bit
                    int at = packet.readerIndex() + data.consumeInt(0, packet.readableBytes() - 1);
                    packet.setByte(at, packet.getByte(at) ^ (1 << data.consumeInt(0, 7)));
                }
                byte[] bytes = ByteBufUtil.getBytes(packet);
                steps.add("forged " + bytes.length + " B to " + (to == server.localAddress() ? "server" : "client")
                        + ": " + ByteBufUtil.hexDump(bytes, 0, Math.min(bytes.length, 48)));
                net.send(FORGER, to, Unpooled.wrappedBuffer(bytes));
            } finally {
                packet.release();
            }
        }

        // ---- the handler ----

        private void handle(RpcContext ctx, ByteBuf request) throws Exception {
            handlersBusy++;
            boolean stillBusy = false;
            try {
                HandlerMode mode = request.readableBytes() == 0 ? HandlerMode.ECHO
                        : HandlerMode.ALL[(request.getByte(0) & 0xFF) % HandlerMode.ALL.length];
                int parameter = request.readableBytes() < 2 ? 0 : request.getByte(1) & 0xFF;
                switch (mode) {
                    case ECHO -> ctx.reply(request.retain());
                    case ECHO_WITH_HEADERS -> ctx.reply(request.retain(), Metadata.of("echo", "yes"));
                    case REPLY_THEN_RELEASE -> {
                        ByteBuf copy = alloc.heapBuffer().writeBytes(request, 0, request.readableBytes());
                        ctx.reply(copy);
                        copy.release(); // the misuse of issue 16.2
                    }
                    case REPLY_THEN_SHRINK -> {
                        ByteBuf copy = alloc.heapBuffer().writeBytes(request, 0, request.readableBytes());
                        ctx.reply(copy);
                        try {
                            copy.capacity(Math.min(copy.capacity(), parameter));
                        } catch (RuntimeException sentAndReleasedAlready) {
                            // nothing left to spoil
                        }
                    }
                    case REPLY_RELEASED -> {
                        ByteBuf copy = alloc.heapBuffer().writeBytes(request, 0, request.readableBytes());
                        copy.release();
                        ctx.reply(copy); // throws: the caller gets HANDLER_ERROR
                    }
                    case NEVER_REPLY -> { }
                    case REPLY_TWICE -> {
                        ctx.reply(request.retain());
                        ctx.reply(alloc.heapBuffer(1).writeByte(1)); // throws IllegalStateException after replying
                    }
                    case THROW -> throw new IllegalStateException("a handler that throws");
                    case THROW_ERROR -> throw new OutOfMemoryError("a handler out of memory");
                    case FAIL_WITH_STATUS -> ctx.fail(parameter, "failed with status " + parameter); // 0: throws
                    case REPLY_LATER -> {
                        ByteBuf kept = request.retain();
                        stillBusy = true;
                        net.later(parameter * MS, finishLater(() -> net.onLoop(SERVER, () -> ctx.reply(kept))));
                    }
                    case BLOCK_THEN_ECHO -> {
                        net.elapse((parameter % 40) * MS); // a handler that blocks, on the loop or an executor
                        ctx.reply(request.retain());
                    }
                    case REPLY_OVERSIZED -> ctx.reply(alloc.heapBuffer(MAX_MESSAGE + 1).writerIndex(MAX_MESSAGE + 1));
                    case CALL_ITSELF -> {
                        stillBusy = true;
                        byte[] nested = {(byte) HandlerMode.ECHO.ordinal(), (byte) parameter};
                        CompletableFuture<byte[]> inner;
                        try {
                            inner = server.call(server.localAddress(), nested, CallOptions.DEFAULT);
                        } catch (RuntimeException refused) {
                            stillBusy = false;
                            throw refused;
                        }
                        inner.whenComplete((bytes, failure) -> finishLater(() -> {
                            if (failure != null) {
                                ctx.fail("nested call failed: " + failure);
                            } else {
                                ctx.reply(bytes);
                            }
                        }).run());
                    }
                    default -> { // REPLY_WHEN_CANCELLED: a reply to a dead RPC is dropped, and releases its buffer
                        ByteBuf kept = request.retain();
                        stillBusy = true;
                        ctx.onCancel(finishLater(() -> ctx.reply(kept)));
                    }
                }
            } finally {
                if (!stillBusy) {
                    handlersBusy--;
                }
            }
        }

        /**
         * The end of a handler that answers later: runs {@code answer} (which the API must not make throw), then
         * counts the handler as done.
         */
        private Runnable finishLater(Runnable answer) {
            return () -> {
                try {
                    answer.run();
                } catch (RuntimeException e) {
                    handlerSurprises.add(e);
                } finally {
                    handlersBusy--;
                }
            };
        }

        // ---- the checks ----

        private void checkOutcome(Call call) throws Exception {
            if (!call.future.isDone()) {
                throw new AssertionError("a call never ended: " + call.what + "; client " + client.debugState()
                        + ", server " + server.debugState() + "; session:\n  " + String.join("\n  ", steps));
            }
            Object result;
            try {
                result = call.future.get();
            } catch (CancellationException c) {
                assertTrue(call.cancelledByUs, "only a call we cancelled ends cancelled");
                outcomes.add("cancelled");
                return;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() instanceof CompletionException ce ? ce.getCause() : e.getCause();
                if (!(cause instanceof HomaException homa)) {
                    throw new AssertionError("a call failed untyped: " + call.what, cause);
                }
                outcomes.add(homa.code() + ": " + homa.getMessage());
                return;
            }
            taken.add(call.future);
            byte[] bytes;
            if (result instanceof ByteBuf b) {
                bytes = ByteBufUtil.getBytes(b);
                b.release();
            } else if (result instanceof RpcResponse r) {
                bytes = ByteBufUtil.getBytes(r.payload());
                r.close();
            } else {
                bytes = (byte[]) result;
            }
            outcomes.add("response of " + bytes.length + " B");
            if (call.expectedEcho != null) {
                assertArrayEquals(call.expectedEcho, bytes, "an echo of a good request is byte-exact: " + call.what);
            }
        }

        /** An endpoint the session did not close answers a plain call (a misuse must not break it for good). */
        private void checkStillServing() throws Exception {
            if (client.isShutdown() || server.isShutdown()) {
                return;
            }
            byte[] ping = {(byte) HandlerMode.ECHO.ordinal(), 0, 42};
            List<CompletableFuture<byte[]>> call = new ArrayList<>(1);
            net.onLoop(CLIENT, () -> call.add(client.call(server.localAddress(), ping,
                    CallOptions.timeout(Duration.ofSeconds(5)))));
            net.advanceUntil(call.get(0)::isDone, TimeUnit.SECONDS.toNanos(6), MS);
            assertTrue(call.get(0).isDone(), "a plain call ends");
            try {
                assertArrayEquals(ping, call.get(0).get(), "the endpoints still serve a plain call");
            } catch (ExecutionException e) {
                throw new AssertionError("the endpoints no longer serve a plain call; session:\n  "
                        + String.join("\n  ", steps), e.getCause());
            }
        }

        /** The steps and every outcome, one a line. */
        String transcript() {
            return String.join("\n", steps) + "\n--\n" + String.join("\n", outcomes);
        }

        private void closeAll() {
            net.onLoop(CLIENT, client::close);
            net.onLoop(SERVER, server::close);
            net.pump();
        }

        @Override
        public void close() {
            engineAlloc.failAbove(Integer.MAX_VALUE);
            closeAll();
            for (Call call : calls) { // responses of calls a failed check did not take
                if (call.future.isDone() && !call.future.isCompletedExceptionally() && !taken.contains(call.future)) {
                    ReferenceCountUtil.safeRelease(call.future.join() instanceof RpcResponse r ? r.payload()
                            : call.future.join());
                }
            }
            net.close();
        }
    }
}
