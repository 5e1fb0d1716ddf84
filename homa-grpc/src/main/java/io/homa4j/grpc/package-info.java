/**
 * gRPC-java over Homa: services defined in protobuf and called through generated stubs switch transports by
 * changing the line that builds the channel ({@link io.homa4j.grpc.HomaChannelBuilder}) and the server
 * ({@link io.homa4j.grpc.HomaServerBuilder}).
 *
 * <h2>What is carried</h2>
 * Unary methods, each call one Homa RPC: the request message carries the method's full name, the headers and
 * the message; the Homa call carries the deadline; the response carries the status with its description, the
 * response headers, the trailers and, on success, the message. The envelope's layout is documented on
 * {@code io.homa4j.grpc.internal.GrpcFrame}. Streaming methods are refused with {@code UNIMPLEMENTED}: Homa's unit
 * is a whole message, and a stream of them would need ordering and flow control across RPCs that Homa does not
 * give. Message compression: gzip, on both sides ({@code withCompression("gzip")} on a stub,
 * {@code ServerCall.setCompression("gzip")} on a server); any other compressor name fails the call.
 *
 * <h2>Why the public API, not the transport SPI</h2>
 * The channel extends {@link io.grpc.ManagedChannel} and answers {@link io.grpc.ClientCall}s; the server extends
 * {@link io.grpc.Server} and drives {@link io.grpc.ServerCall}s through the services' own
 * {@link io.grpc.ServerCallHandler}s. gRPC's transport SPI ({@code ClientTransport}, {@code ServerTransport},
 * {@code ManagedChannelImplBuilder}) would bring name resolution, load balancing and retries for free, but it is
 * {@code @Internal}: it changes between gRPC releases without notice, so a library built on it breaks its users
 * whenever they upgrade gRPC. The public API is stable across releases; what it costs is those channel features,
 * which a Homa channel addresses one server anyway. Interceptors still work on both sides
 * ({@link io.grpc.ClientInterceptors}, {@link io.grpc.ServerInterceptors}, or the builders' {@code intercept}).
 *
 * <h2>Statuses</h2>
 * Homa4J's failures become gRPC statuses: DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE (the server stopped
 * answering, or nothing listens), RESOURCE_EXHAUSTED (a configured limit, or a message over Homa's
 * {@code maxMessageBytes}), INTERNAL (a protocol error). A malformed frame is answered INTERNAL, an unknown method
 * UNIMPLEMENTED, headers over {@code maxInboundMetadataSize} INTERNAL and a message over
 * {@code maxInboundMessageSize} RESOURCE_EXHAUSTED, as gRPC-java answers them; the endpoint serves on.
 */
package io.homa4j.grpc;
