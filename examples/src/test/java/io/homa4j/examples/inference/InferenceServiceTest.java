package io.homa4j.examples.inference;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.homa4j.grpc.HomaChannelBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The inference service over Homa on real UDP loopback, through the generated stubs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InferenceServiceTest {
    private Server server;
    private ManagedChannel channel;
    private InferenceGrpc.InferenceBlockingStub stub;

    @BeforeEach
    void start() throws Exception {
        server = InferenceServer.start(0);
        channel = HomaChannelBuilder.forAddress("127.0.0.1", server.getPort()).build();
        stub = InferenceGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdown();
        server.shutdown();
        assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(server.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void uploadsLargeWeightsThenPredicts() {
        float[] weights = new float[2_000_000]; // an 8 MB upload: many Homa packets, one RPC
        for (int i = 0; i < weights.length; i++) {
            weights[i] = (i % 7) * 0.01f;
        }
        Tensor tensor = InferenceClient.weights("m1", weights);
        UploadReply uploaded = stub.withDeadlineAfter(20, TimeUnit.SECONDS).uploadWeights(tensor);
        assertEquals(8_000_000, uploaded.getBytes());
        CRC32 crc = new CRC32();
        crc.update(ByteBuffer.wrap(tensor.getData().toByteArray()));
        assertEquals((int) crc.getValue(), uploaded.getCrc32(), "the server got every byte");

        List<Float> features = List.of(1f, -2f, 3f, 4f, 5f, 6f, 7f, 8f);
        PredictReply reply = stub.withDeadlineAfter(5, TimeUnit.SECONDS).predict(PredictRequest.newBuilder()
                .setModel("m1").addAllFeatures(features).build());
        assertEquals(InferenceService.score(weights, features), reply.getScore(), 1e-6);
        assertEquals(reply.getScore() >= 0.5f ? "positive" : "negative", reply.getLabel());
    }

    @Test
    void statusesComeBackAsOverGrpcJava() {
        StatusRuntimeException unknownModel = assertThrows(StatusRuntimeException.class, () -> stub.predict(
                PredictRequest.newBuilder().setModel("none").addFeatures(1).build()));
        assertEquals(Status.Code.NOT_FOUND, unknownModel.getStatus().getCode());
        assertEquals("no weights uploaded for model none", unknownModel.getStatus().getDescription());

        StatusRuntimeException badShape = assertThrows(StatusRuntimeException.class, () -> stub.uploadWeights(
                Tensor.newBuilder().setModel("m").addShape(3).addShape(3).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, badShape.getStatus().getCode());
    }
}
