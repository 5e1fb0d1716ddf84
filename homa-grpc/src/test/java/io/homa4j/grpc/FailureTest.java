package io.homa4j.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.homa4j.HomaEndpoint;
import io.homa4j.grpc.interop.Empty;
import io.homa4j.grpc.interop.SimpleRequest;
import io.homa4j.grpc.interop.SimpleResponse;
import io.homa4j.grpc.interop.TestServiceGrpc;
import io.homa4j.grpc.internal.GrpcFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What goes wrong: handlers that fail, servers that never answer or are not there, cancellation under load, and
 * frames that are not what they claim, sent straight from a Homa endpoint. Real UDP loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailureTest {
    private final List<Server> servers = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<HomaEndpoint> endpoints = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (ManagedChannel channel : channels) {
            channel.shutdownNow();
            assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS));
        }
        for (Server server : servers) {
            server.shutdownNow();
            assertTrue(server.awaitTermination(10, TimeUnit.SECONDS));
        }
        endpoints.forEach(HomaEndpoint::close);
    }

    private Server serve(io.grpc.BindableService service, ServerInterceptor... interceptors) throws Exception {
        HomaServerBuilder builder = HomaServerBuilder.forAddress(InetAddress.getLoopbackAddress(), 0)
                .addService(service);
        for (ServerInterceptor interceptor : interceptors) {
            builder.intercept(interceptor);
        }
        Server server = builder.build().start();
        servers.add(server);
        return server;
    }

    private ManagedChannel channelTo(int port) {
        ManagedChannel channel = HomaChannelBuilder.forAddress("127.0.0.1", port).build();
        channels.add(channel);
        return channel;
    }

    @Test
    void aHandlerThatThrowsAnswersUnknown() throws Exception {
        Server server = serve(new TestServiceGrpc.TestServiceImplBase() {
            @Override
            public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
                throw Status.NOT_FOUND.withDescription("thrown, not sent").asRuntimeException();
            }

            @Override
            public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
                Metadata trailers = new Metadata();
                trailers.put(Metadata.Key.of("why", Metadata.ASCII_STRING_MARSHALLER), "because");
                responseObserver.onError(Status.NOT_FOUND.withDescription("sent").asException(trailers));
            }
        });
        TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(channelTo(server.getPort()));
        StatusRuntimeException thrown = assertThrows(StatusRuntimeException.class,
                () -> stub.emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.UNKNOWN, thrown.getStatus().getCode(), "as gRPC-java: a thrown status is not sent");
        StatusRuntimeException sent = assertThrows(StatusRuntimeException.class,
                () -> stub.unaryCall(SimpleRequest.getDefaultInstance()));
        assertEquals(Status.Code.NOT_FOUND, sent.getStatus().getCode());
        assertEquals("sent", sent.getStatus().getDescription());
        assertEquals("because", sent.getTrailers().get(Metadata.Key.of("why", Metadata.ASCII_STRING_MARSHALLER)));
    }

    @Test
    void aServerThatNeverAnswersEndsAtTheDeadline() throws Exception {
        CountDownLatch reached = new CountDownLatch(1);
        Server server = serve(new TestServiceGrpc.TestServiceImplBase() {
            @Override
            public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
                reached.countDown(); // and never answers, nor looks at its Context
            }
        });
        TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(channelTo(server.getPort()));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub
                .withDeadlineAfter(300, TimeUnit.MILLISECONDS).emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
        // Without a deadline of its own the call would wait as long as the server holds it: the context's ends it.
        io.grpc.Context.CancellableContext context = io.grpc.Context.current().withCancellation();
        java.util.concurrent.Future<?> call = java.util.concurrent.Executors.newSingleThreadExecutor().submit(
                () -> context.run(() -> stub.emptyCall(Empty.getDefaultInstance())));
        assertTrue(reached.await(10, TimeUnit.SECONDS), "the request reached the handler");
        context.cancel(null);
        java.util.concurrent.ExecutionException cancelled = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> call.get(10, TimeUnit.SECONDS));
        assertEquals(Status.Code.CANCELLED, Status.fromThrowable(cancelled.getCause()).getCode());
    }

    @Test
    void nothingListensAtTheAddress() throws Exception {
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // free once closed: nothing listens there
        }
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> TestServiceGrpc
                .newBlockingStub(channelTo(port)).withDeadlineAfter(2, TimeUnit.SECONDS)
                .emptyCall(Empty.getDefaultInstance()));
        assertTrue(e.getStatus().getCode() == Status.Code.UNAVAILABLE
                || e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED, e.getStatus().toString());
    }

    @Test
    void clientCancelsUnderLoad() throws Exception {
        InteropTestService service = new InteropTestService();
        int hanging = 50;
        int answered = 200;
        service.hanging = new CountDownLatch(hanging);
        service.cancelled = new CountDownLatch(hanging);
        Server server = HomaServerBuilder.forAddress(InetAddress.getLoopbackAddress(), 0)
                .addService(service.definition()).build().start();
        servers.add(server);
        ManagedChannel channel = channelTo(server.getPort());
        TestServiceGrpc.TestServiceFutureStub stub = TestServiceGrpc.newFutureStub(channel);
        TestServiceGrpc.TestServiceFutureStub hangingStub = stub.withInterceptors(
                MetadataUtils.newAttachHeadersInterceptor(InteropTest.hangHeader()));
        List<com.google.common.util.concurrent.ListenableFuture<Empty>> toCancel = new ArrayList<>();
        List<com.google.common.util.concurrent.ListenableFuture<SimpleResponse>> toAnswer = new ArrayList<>();
        for (int i = 0; i < answered; i++) {
            if (i < hanging) {
                toCancel.add(hangingStub.emptyCall(Empty.getDefaultInstance()));
            }
            toAnswer.add(stub.unaryCall(SimpleRequest.newBuilder().setResponseSize(1000).build()));
        }
        assertTrue(service.hanging.await(20, TimeUnit.SECONDS), "every hanging handler started");
        for (com.google.common.util.concurrent.ListenableFuture<Empty> call : toCancel) {
            assertTrue(call.cancel(true));
        }
        for (com.google.common.util.concurrent.ListenableFuture<SimpleResponse> call : toAnswer) {
            assertEquals(1000, call.get(20, TimeUnit.SECONDS).getPayload().getBody().size());
        }
        assertTrue(service.cancelled.await(20, TimeUnit.SECONDS), "every cancel reached its handler's Context");
        assertEquals(hanging, service.contextCancellations.get());
    }

    @Test
    void builderInterceptorsRunOnBothSides() throws Exception {
        Metadata.Key<String> tag = Metadata.Key.of("tag", Metadata.ASCII_STRING_MARSHALLER);
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Server server = serve(new InteropTestService(), new ServerInterceptor() {
            @Override
            public <ReqT, RespT> io.grpc.ServerCall.Listener<ReqT> interceptCall(io.grpc.ServerCall<ReqT, RespT> call,
                    Metadata headers, io.grpc.ServerCallHandler<ReqT, RespT> next) {
                seen.add("server " + headers.get(tag) + " " + call.getMethodDescriptor().getBareMethodName());
                return next.startCall(call, headers);
            }
        });
        Metadata headers = new Metadata();
        headers.put(tag, "t1");
        ManagedChannel channel = HomaChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).directExecutor().build();
        channels.add(channel);
        TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());
        assertEquals(List.of("server t1 EmptyCall"), seen);
    }

    @Test
    void afterShutdownNewCallsAreUnavailable() throws Exception {
        Server server = serve(new InteropTestService());
        ManagedChannel channel = channelTo(server.getPort());
        TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance());
        channel.shutdown();
        assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> TestServiceGrpc.newBlockingStub(channel).emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
    }

    /** Raw Homa calls to a homa-grpc server: each bad frame gets its status, and the server serves on. */
    @Test
    void badFramesGetTheirStatusAndTheEndpointServesOn() throws Exception {
        Server server = serve(new InteropTestService());
        HomaEndpoint raw = HomaEndpoint.builder().build();
        endpoints.add(raw);
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort());
        String empty = "grpc.testing.TestService/EmptyCall";

        assertStatus(raw, to, Unpooled.wrappedBuffer(new byte[]{0x67, 1, 1}), Status.Code.INTERNAL, "shorter");
        ByteBuf good = request(empty, new Metadata(), new byte[0]);
        assertStatus(raw, to, good.retainedSlice(0, good.readableBytes()).setByte(1, 9), Status.Code.INTERNAL,
                "version 9");
        good.release();
        ByteBuf overrun = request(empty, new Metadata(), new byte[0]);
        overrun.setInt(8, 1 << 20);
        assertStatus(raw, to, overrun, Status.Code.INTERNAL, "overrun");
        assertStatus(raw, to, request("no.Such/Method", new Metadata(), new byte[0]), Status.Code.UNIMPLEMENTED,
                "Method not found: no.Such/Method");
        assertStatus(raw, to, request("grpc.testing.TestService/StreamingOutputCall", new Metadata(), new byte[0]),
                Status.Code.UNIMPLEMENTED, "unary methods only");
        Metadata big = new Metadata();
        for (int i = 0; i < 10; i++) {
            big.put(Metadata.Key.of("h" + i, Metadata.ASCII_STRING_MARSHALLER), "x".repeat(1000));
        }
        assertStatus(raw, to, request(empty, big, new byte[0]), Status.Code.INTERNAL, "exceeded max allowed size");
        assertStatus(raw, to, request("grpc.testing.TestService/UnaryCall", new Metadata(), new byte[]{(byte) 0xff}),
                Status.Code.INTERNAL, null);
        ByteBuf badKey = request(empty, Metadata2.one("ok", "v"), new byte[0]);
        badKey.setByte(GrpcFrame.HEADER_LENGTH + empty.length() + 3, '!'); // not a character gRPC keys have
        assertStatus(raw, to, badKey, Status.Code.INTERNAL, "invalid metadata key");

        assertEquals(Empty.getDefaultInstance(), TestServiceGrpc.newBlockingStub(channelTo(server.getPort()))
                .emptyCall(Empty.getDefaultInstance()), "the server serves on");
    }

    private static ByteBuf request(String method, Metadata headers, byte[] message) {
        return GrpcFrame.encodeRequest(ByteBufAllocator.DEFAULT, method.getBytes(StandardCharsets.UTF_8), headers,
                false, Unpooled.wrappedBuffer(message));
    }

    private static void assertStatus(HomaEndpoint raw, InetSocketAddress to, ByteBuf frame, Status.Code code,
                                     String descriptionPart) throws Exception {
        ByteBuf answer = raw.call(to, frame).get(10, TimeUnit.SECONDS);
        try {
            GrpcFrame response = new GrpcFrame();
            assertNull(response.wrap(answer));
            assertEquals(code.value(), response.statusCode(), response.text());
            if (descriptionPart != null) {
                assertTrue(response.text().contains(descriptionPart), response.text());
            }
        } finally {
            answer.release();
        }
    }

    /** One-entry metadata. */
    private static final class Metadata2 {
        static Metadata one(String key, String value) {
            Metadata metadata = new Metadata();
            metadata.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
            return metadata;
        }
    }

    @Test
    void statusExceptionFromOnErrorIsSentWithItsTrailers() throws Exception {
        Server server = serve(new TestServiceGrpc.TestServiceImplBase() {
            @Override
            public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
                responseObserver.onError(new StatusException(Status.ALREADY_EXISTS));
            }
        });
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> TestServiceGrpc
                .newBlockingStub(channelTo(server.getPort())).emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.ALREADY_EXISTS, e.getStatus().getCode());
    }
}
