package io.homa4j.examples.inference;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

/**
 * A logistic-regression "model server": {@code UploadWeights} stores a model's weight vector (a 1-D tensor, which
 * for a real model is megabytes), {@code Predict} scores a feature vector against it. Plain gRPC-java code: it does
 * not know which transport carries it.
 */
public final class InferenceService extends InferenceGrpc.InferenceImplBase {
    private final Map<String, float[]> weights = new ConcurrentHashMap<>();

    @Override
    public void uploadWeights(Tensor tensor, StreamObserver<UploadReply> reply) {
        if (tensor.getShapeCount() != 1 || tensor.getShape(0) * Float.BYTES != tensor.getData().size()) {
            reply.onError(Status.INVALID_ARGUMENT.withDescription("a weight vector is a 1-D tensor of "
                    + "shape[0] floats; got shape " + tensor.getShapeList() + " and " + tensor.getData().size()
                    + " bytes").asRuntimeException());
            return;
        }
        ByteBuffer data = tensor.getData().asReadOnlyByteBuffer();
        CRC32 crc = new CRC32();
        crc.update(data.duplicate());
        float[] vector = new float[(int) tensor.getShape(0)];
        data.order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
        weights.put(tensor.getModel(), vector);
        reply.onNext(UploadReply.newBuilder().setModel(tensor.getModel()).setBytes(tensor.getData().size())
                .setCrc32((int) crc.getValue()).build());
        reply.onCompleted();
    }

    @Override
    public void predict(PredictRequest request, StreamObserver<PredictReply> reply) {
        float[] vector = weights.get(request.getModel());
        if (vector == null) {
            reply.onError(Status.NOT_FOUND.withDescription("no weights uploaded for model " + request.getModel())
                    .asRuntimeException());
            return;
        }
        if (request.getFeaturesCount() > vector.length) {
            reply.onError(Status.INVALID_ARGUMENT.withDescription(request.getFeaturesCount()
                    + " features for a model of " + vector.length + " weights").asRuntimeException());
            return;
        }
        float score = score(vector, request.getFeaturesList());
        reply.onNext(PredictReply.newBuilder().setScore(score).setLabel(score >= 0.5f ? "positive" : "negative")
                .build());
        reply.onCompleted();
    }

    /** The logistic function of the dot product of the features with the first weights. */
    public static float score(float[] weights, java.util.List<Float> features) {
        double dot = 0;
        for (int i = 0; i < features.size(); i++) {
            dot += weights[i] * features.get(i);
        }
        return (float) (1 / (1 + Math.exp(-dot)));
    }
}
