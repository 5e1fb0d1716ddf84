package io.homa4j.grpc;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.ByteString;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.homa4j.grpc.interop.BoolValue;
import io.homa4j.grpc.interop.EchoStatus;
import io.homa4j.grpc.interop.Empty;
import io.homa4j.grpc.interop.Payload;
import io.homa4j.grpc.interop.SimpleRequest;
import io.homa4j.grpc.interop.SimpleResponse;
import io.homa4j.grpc.interop.StreamingOutputCallRequest;
import io.homa4j.grpc.interop.TestServiceGrpc;
import io.homa4j.grpc.interop.UnimplementedServiceGrpc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC's interoperability test cases for unary calls, as the suite's description defines them, against
 * {@link InteropTestService} over Homa on real UDP loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InteropTest {
    private static InteropTestService service;
    private static Server server;
    private static ManagedChannel channel;
    private static TestServiceGrpc.TestServiceBlockingStub blocking;

    @BeforeAll
    static void startServer() throws Exception {
        service = new InteropTestService();
        server = HomaServerBuilder.forAddress(InetAddress.getLoopbackAddress(), 0)
                .addService(service.definition()).build().start();
        channel = HomaChannelBuilder.forAddress("127.0.0.1", server.getPort()).build();
        blocking = TestServiceGrpc.newBlockingStub(channel);
    }

    @AfterAll
    static void stopServer() throws InterruptedException {
        channel.shutdown();
        server.shutdown();
        assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(server.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void emptyUnary() {
        assertEquals(Empty.getDefaultInstance(), blocking.emptyCall(Empty.getDefaultInstance()));
    }

    @Test
    void largeUnary() {
        SimpleRequest request = SimpleRequest.newBuilder().setResponseSize(314_159)
                .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[271_828]))).build();
        SimpleResponse response = blocking.unaryCall(request);
        assertEquals(314_159, response.getPayload().getBody().size());
        assertTrue(response.getPayload().getBody().equals(ByteString.copyFrom(new byte[314_159])));
    }

    @Test
    void clientCompressedUnary() {
        SimpleRequest.Builder request = SimpleRequest.newBuilder().setResponseSize(314_159)
                .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[271_828])));
        // The probe: a server that checks compression refuses an uncompressed request that claims otherwise.
        StatusRuntimeException probe = assertThrows(StatusRuntimeException.class, () -> blocking.unaryCall(
                request.setExpectCompressed(BoolValue.newBuilder().setValue(true)).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, probe.getStatus().getCode());

        SimpleResponse compressed = blocking.withCompression("gzip").unaryCall(
                request.setExpectCompressed(BoolValue.newBuilder().setValue(true)).build());
        assertEquals(314_159, compressed.getPayload().getBody().size());
        SimpleResponse plain = blocking.unaryCall(
                request.setExpectCompressed(BoolValue.newBuilder().setValue(false)).build());
        assertEquals(314_159, plain.getPayload().getBody().size());
    }

    @Test
    void serverCompressedUnary() {
        for (boolean compress : new boolean[]{true, false}) {
            SimpleResponse response = blocking.unaryCall(SimpleRequest.newBuilder().setResponseSize(314_159)
                    .setResponseCompressed(BoolValue.newBuilder().setValue(compress))
                    .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[271_828]))).build());
            assertEquals(314_159, response.getPayload().getBody().size());
        }
    }

    @Test
    void statusCodeAndMessage() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> blocking.unaryCall(
                SimpleRequest.newBuilder().setResponseStatus(EchoStatus.newBuilder().setCode(2)
                        .setMessage("test status message")).build()));
        assertEquals(Status.Code.UNKNOWN, e.getStatus().getCode());
        assertEquals("test status message", e.getStatus().getDescription());
    }

    @Test
    void specialStatusMessage() {
        String text = "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> blocking.unaryCall(
                SimpleRequest.newBuilder().setResponseStatus(EchoStatus.newBuilder().setCode(2)
                        .setMessage(text)).build()));
        assertEquals(Status.Code.UNKNOWN, e.getStatus().getCode());
        assertEquals(text, e.getStatus().getDescription());
    }

    @Test
    void customMetadata() {
        Metadata sent = new Metadata();
        sent.put(InteropTestService.ECHO_INITIAL, "test_initial_metadata_value");
        byte[] trailing = {(byte) 0xab, (byte) 0xab, (byte) 0xab};
        sent.put(InteropTestService.ECHO_TRAILING, trailing);
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        TestServiceGrpc.TestServiceBlockingStub stub = TestServiceGrpc.newBlockingStub(ClientInterceptors.intercept(
                channel, MetadataUtils.newAttachHeadersInterceptor(sent),
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)));
        SimpleResponse response = stub.unaryCall(SimpleRequest.newBuilder().setResponseSize(314_159)
                .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[271_828]))).build());
        assertEquals(314_159, response.getPayload().getBody().size());
        assertEquals("test_initial_metadata_value", headers.get().get(InteropTestService.ECHO_INITIAL));
        assertArrayEquals(trailing, trailers.get().get(InteropTestService.ECHO_TRAILING));
    }

    @Test
    void timeoutOnSleepingServer() throws InterruptedException {
        service.hanging = new CountDownLatch(1);
        service.cancelled = new CountDownLatch(1);
        // Long enough for the handler to start on a loaded machine, so its Context's cancellation is seen.
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> hangingStub()
                .withDeadlineAfter(500, TimeUnit.MILLISECONDS).emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
        assertEquals(0, service.hanging.getCount(), "the handler ran");
        assertTrue(service.cancelled.await(10, TimeUnit.SECONDS), "the server's Context was cancelled");
        // The suite's own case: a deadline so short it may pass before the request is even sent.
        StatusRuntimeException tiny = assertThrows(StatusRuntimeException.class, () -> hangingStub()
                .withDeadlineAfter(1, TimeUnit.MILLISECONDS).emptyCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, tiny.getStatus().getCode());
    }

    @Test
    void cancelAfterBegin() throws Exception {
        service.hanging = new CountDownLatch(1);
        service.cancelled = new CountDownLatch(1);
        TestServiceGrpc.TestServiceFutureStub stub = TestServiceGrpc.newFutureStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(hangHeader()));
        ListenableFuture<Empty> call = stub.emptyCall(Empty.getDefaultInstance());
        assertTrue(service.hanging.await(10, TimeUnit.SECONDS), "the handler started");
        assertTrue(call.cancel(true));
        assertTrue(service.cancelled.await(10, TimeUnit.SECONDS), "the server's Context was cancelled");
        assertEquals(Empty.getDefaultInstance(), blocking.emptyCall(Empty.getDefaultInstance()),
                "the channel serves on");
    }

    @Test
    void unimplementedMethod() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> blocking.unimplementedCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
    }

    @Test
    void unimplementedService() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> UnimplementedServiceGrpc.newBlockingStub(channel).unimplementedCall(Empty.getDefaultInstance()));
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
        assertEquals("Method not found: grpc.testing.UnimplementedService/UnimplementedCall",
                e.getStatus().getDescription());
    }

    @Test
    void streamingMethodIsRefusedBeforeSending() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> blocking
                .streamingOutputCall(StreamingOutputCallRequest.getDefaultInstance()).hasNext());
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("unary calls only"), e.getStatus().getDescription());
    }

    @Test
    void asyncStubCompletesItsObserver() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<SimpleResponse> response = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        TestServiceGrpc.newStub(channel).unaryCall(SimpleRequest.newBuilder().setResponseSize(10).build(),
                new io.grpc.stub.StreamObserver<>() {
                    @Override
                    public void onNext(SimpleResponse value) {
                        response.set(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        failure.set(t);
                        done.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        done.countDown();
                    }
                });
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(null, failure.get());
        assertEquals(10, response.get().getPayload().getBody().size());
    }

    @Test
    void futureStubGivesTheStatusOfAFailure() {
        ListenableFuture<SimpleResponse> call = TestServiceGrpc.newFutureStub(channel).unaryCall(
                SimpleRequest.newBuilder().setResponseStatus(EchoStatus.newBuilder().setCode(
                        Status.Code.PERMISSION_DENIED.value()).setMessage("no")).build());
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        Status status = Status.fromThrowable(e.getCause());
        assertEquals(Status.Code.PERMISSION_DENIED, status.getCode());
        assertEquals("no", status.getDescription());
    }

    @Test
    void largeMessagesAreRefusedOverTheDefaultLimit() {
        StatusRuntimeException response = assertThrows(StatusRuntimeException.class, () -> blocking.unaryCall(
                SimpleRequest.newBuilder().setResponseSize(5 << 20).build()));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, response.getStatus().getCode());
        assertTrue(response.getStatus().getDescription().startsWith("gRPC message exceeds maximum size 4194304"),
                response.getStatus().getDescription());
        StatusRuntimeException request = assertThrows(StatusRuntimeException.class, () -> blocking.unaryCall(
                SimpleRequest.newBuilder().setPayload(Payload.newBuilder().setBody(
                        ByteString.copyFrom(new byte[5 << 20]))).build()));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, request.getStatus().getCode());
        assertEquals(Empty.getDefaultInstance(), blocking.emptyCall(Empty.getDefaultInstance()));
    }

    @Test
    void sixteenMegabyteMessages() throws Exception {
        Server big = HomaServerBuilder.forAddress(InetAddress.getLoopbackAddress(), 0)
                .addService(new InteropTestService()).maxInboundMessageSize(32 << 20).build().start();
        ManagedChannel bigChannel = HomaChannelBuilder.forAddress("127.0.0.1", big.getPort())
                .maxInboundMessageSize(32 << 20).build();
        try {
            byte[] body = new byte[16 << 20];
            Arrays.fill(body, (byte) 7);
            SimpleResponse response = TestServiceGrpc.newBlockingStub(bigChannel).unaryCall(SimpleRequest.newBuilder()
                    .setResponseSize(16 << 20).setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(body)))
                    .build());
            assertEquals(16 << 20, response.getPayload().getBody().size());
        } finally {
            bigChannel.shutdown();
            big.shutdown();
            assertTrue(bigChannel.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(big.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    private static TestServiceGrpc.TestServiceBlockingStub hangingStub() {
        return blocking.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(hangHeader()));
    }

    static Metadata hangHeader() {
        Metadata hang = new Metadata();
        hang.put(InteropTestService.HANG, "1");
        return hang;
    }
}
