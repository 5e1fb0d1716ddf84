package io.homa4j.grpc;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.homa4j.grpc.interop.Empty;
import io.homa4j.grpc.interop.Payload;
import io.homa4j.grpc.interop.SimpleRequest;
import io.homa4j.grpc.interop.SimpleResponse;
import io.homa4j.grpc.interop.StreamingOutputCallRequest;
import io.homa4j.grpc.interop.StreamingOutputCallResponse;
import io.homa4j.grpc.interop.TestServiceGrpc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The interop suite's TestService, as its description specifies the server: UnaryCall answers a payload of
 * {@code response_size} zero bytes, the {@code response_status} asked for, and checks {@code expect_compressed};
 * the echo headers come back as response headers and trailers. For the deadline and cancellation cases, a request
 * with the {@link #HANG} header is never answered: the handler waits for its {@link Context} to be cancelled and
 * counts {@link #contextCancellations}.
 */
final class InteropTestService extends TestServiceGrpc.TestServiceImplBase {
    static final Metadata.Key<String> ECHO_INITIAL =
            Metadata.Key.of("x-grpc-test-echo-initial", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<byte[]> ECHO_TRAILING =
            Metadata.Key.of("x-grpc-test-echo-trailing-bin", Metadata.BINARY_BYTE_MARSHALLER);
    static final Metadata.Key<String> HANG = Metadata.Key.of("x-homa-test-hang", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> ENCODING =
            Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);
    private static final Context.Key<Boolean> COMPRESSED = Context.key("compressed");
    private static final Context.Key<Boolean> HANGS = Context.key("hangs");

    /** Handlers of HANG requests whose Context was cancelled (the deadline or the client's cancel reached it). */
    final AtomicInteger contextCancellations = new AtomicInteger();
    /** Counted down by each HANG handler whose Context was cancelled. */
    volatile CountDownLatch cancelled = new CountDownLatch(1);
    /** Counted down by each HANG handler when it starts waiting. */
    volatile CountDownLatch hanging = new CountDownLatch(1);

    /** This service with the interop server's interceptors: echoed metadata, compression and hang flags. */
    ServerServiceDefinition definition() {
        return ServerInterceptors.intercept(this, new EchoMetadata(), new RequestFlags());
    }

    @Override
    public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
        if (hang()) {
            return;
        }
        responseObserver.onNext(Empty.getDefaultInstance());
        responseObserver.onCompleted();
    }

    @Override
    public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
        if (hang()) {
            return;
        }
        if (request.hasExpectCompressed()
                && request.getExpectCompressed().getValue() != Boolean.TRUE.equals(COMPRESSED.get())) {
            responseObserver.onError(Status.INVALID_ARGUMENT.withDescription("expect_compressed is "
                    + request.getExpectCompressed().getValue() + " but the request was "
                    + (Boolean.TRUE.equals(COMPRESSED.get()) ? "" : "not ") + "compressed").asRuntimeException());
            return;
        }
        if (request.hasResponseStatus() && request.getResponseStatus().getCode() != 0) {
            responseObserver.onError(Status.fromCodeValue(request.getResponseStatus().getCode())
                    .withDescription(request.getResponseStatus().getMessage()).asRuntimeException());
            return;
        }
        if (request.hasResponseCompressed()) {
            ((ServerCallStreamObserver<SimpleResponse>) responseObserver)
                    .setCompression(request.getResponseCompressed().getValue() ? "gzip" : "identity");
        }
        responseObserver.onNext(SimpleResponse.newBuilder().setPayload(Payload.newBuilder()
                .setBody(ByteString.copyFrom(new byte[request.getResponseSize()]))).build());
        responseObserver.onCompleted();
    }

    @Override
    public void streamingOutputCall(StreamingOutputCallRequest request,
                                    StreamObserver<StreamingOutputCallResponse> responseObserver) {
        responseObserver.onNext(StreamingOutputCallResponse.getDefaultInstance());
        responseObserver.onCompleted();
    }

    /** For a HANG request: waits (without answering) until the handler's Context is cancelled. */
    private boolean hang() {
        if (!Boolean.TRUE.equals(HANGS.get())) {
            return false;
        }
        Context.current().addListener(context -> {
            contextCancellations.incrementAndGet();
            cancelled.countDown();
        }, Runnable::run);
        hanging.countDown();
        return true;
    }

    /** The interop server's echo: the initial header back as a response header, the trailing one as a trailer. */
    private static final class EchoMetadata implements ServerInterceptor {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                     ServerCallHandler<ReqT, RespT> next) {
            String initial = headers.get(ECHO_INITIAL);
            byte[] trailing = headers.get(ECHO_TRAILING);
            return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                @Override
                public void sendHeaders(Metadata responseHeaders) {
                    if (initial != null) {
                        responseHeaders.put(ECHO_INITIAL, initial);
                    }
                    super.sendHeaders(responseHeaders);
                }

                @Override
                public void close(Status status, Metadata trailers) {
                    if (trailing != null) {
                        trailers.put(ECHO_TRAILING, trailing);
                    }
                    super.close(status, trailers);
                }
            }, headers);
        }
    }

    /** Puts whether the request was compressed, and whether it asks the handler to hang, in the Context. */
    private static final class RequestFlags implements ServerInterceptor {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                     ServerCallHandler<ReqT, RespT> next) {
            Context context = Context.current()
                    .withValue(COMPRESSED, "gzip".equals(headers.get(ENCODING)))
                    .withValue(HANGS, headers.containsKey(HANG));
            return Contexts.interceptCall(context, call, headers, next);
        }
    }
}
