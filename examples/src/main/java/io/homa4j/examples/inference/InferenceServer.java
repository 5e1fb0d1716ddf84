package io.homa4j.examples.inference;

import io.grpc.Server;
import io.homa4j.grpc.HomaServerBuilder;

/**
 * Serves {@link InferenceService} over Homa. The one line that differs from a gRPC-java server is the builder:
 * {@code HomaServerBuilder.forPort(port)} where it was {@code ServerBuilder.forPort(port)}.
 *
 * <p>Run: {@code java ... io.homa4j.examples.inference.InferenceServer [port]} (UDP port, default 50051).
 */
public final class InferenceServer {
    /** Weight uploads are large: 64 MiB, where gRPC's default is 4 MiB. */
    public static final int MAX_MESSAGE = 64 << 20;

    private InferenceServer() {
    }

    /** A started server on {@code port} (0: an ephemeral one). */
    public static Server start(int port) throws java.io.IOException {
        return HomaServerBuilder.forPort(port)
                .addService(new InferenceService())
                .maxInboundMessageSize(MAX_MESSAGE)
                .build()
                .start();
    }

    public static void main(String[] args) throws Exception {
        Server server = start(args.length > 0 ? Integer.parseInt(args[0]) : 50051);
        System.out.println("inference service on UDP port " + server.getPort());
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
        server.awaitTermination();
    }
}
