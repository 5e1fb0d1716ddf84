/**
 * gRPC-java unary calls over Homa: {@link io.homa4j.grpc.HomaChannelBuilder} and
 * {@link io.homa4j.grpc.HomaServerBuilder}.
 *
 * <p>API: {@code io.homa4j.grpc} only; the channel, server, envelope and codec of {@code io.homa4j.grpc.internal}
 * are not exported. The builders hand out gRPC's own {@link io.grpc.ManagedChannel} and {@link io.grpc.Server} and
 * take a {@link io.homa4j.HomaEndpoint}, so both modules come along for a user ({@code requires transitive}).
 * {@code io.grpc} is an automatic module whose name grpc-api's manifest declares (Automatic-Module-Name), not one
 * derived from the jar's file name, so requiring it (transitively too) does not break when the jar is renamed:
 * hence the warnings suppressed.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.homa4j.grpc {
    requires transitive io.homa4j.netty;
    requires transitive io.grpc;
    requires org.slf4j;

    exports io.homa4j.grpc;
}
