package io.homa4j.examples.inference;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.homa4j.grpc.HomaChannelBuilder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Uploads a model's weights and asks for a prediction, with the stubs protoc generated. The one line that differs
 * from a gRPC-java client is the channel's builder: {@code HomaChannelBuilder.forAddress(host, port)} where it was
 * {@code ManagedChannelBuilder.forAddress(host, port).usePlaintext()}.
 *
 * <p>Run: {@code java ... io.homa4j.examples.inference.InferenceClient [host [port]]}.
 */
public final class InferenceClient {
    private InferenceClient() {
    }

    /** A 1-D tensor of {@code weights} for {@code model}, as {@link InferenceService#uploadWeights} expects. */
    public static Tensor weights(String model, float[] weights) {
        ByteBuffer data = ByteBuffer.allocate(weights.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        data.asFloatBuffer().put(weights);
        return Tensor.newBuilder().setModel(model).addShape(weights.length).setData(ByteString.copyFrom(data))
                .build();
    }

    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 50051;
        ManagedChannel channel = HomaChannelBuilder.forAddress(host, port).build();
        try {
            InferenceGrpc.InferenceBlockingStub stub = InferenceGrpc.newBlockingStub(channel);
            float[] weights = new float[2_000_000]; // 8 MB of weights
            java.util.Arrays.fill(weights, 0.001f);
            UploadReply uploaded = stub.withDeadlineAfter(10, TimeUnit.SECONDS).uploadWeights(weights("demo", weights));
            System.out.println("uploaded " + uploaded.getBytes() + " bytes");
            PredictReply reply = stub.withDeadlineAfter(100, TimeUnit.MILLISECONDS).predict(PredictRequest
                    .newBuilder().setModel("demo").addFeatures(1).addFeatures(2).addFeatures(3).build());
            System.out.println("score " + reply.getScore() + ": " + reply.getLabel());
        } finally {
            channel.shutdown();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
