package io.homa4j.grpc;

import io.homa4j.testing.ModuleLayers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.module.ModuleDescriptor;
import java.net.InetAddress;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static io.homa4j.testing.ModuleLayers.exports;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tests run on the class path (see the parent POM), so this one proves homa-grpc's module descriptor on a
 * module path: it resolves against homa-netty's and homa-core's modules, Netty's, SLF4J's and gRPC-java's
 * grpc-api (the automatic module {@code io.grpc}, with Guava behind it) in a layer of their own, exports only
 * {@code io.homa4j.grpc}, and its builders start a server and a channel from inside that layer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleDescriptorTest {
    /** The layer's own log output (its Netty's and the endpoints'), which would else go nowhere. */
    private static final String SLF4J_SIMPLE = "org.slf4j.simple";

    @Test
    void moduleResolvesExportsOnlyItsApiAndRuns() throws Exception {
        // Netty, SLF4J (with its simple logger), and grpc-api with what it needs at run time (Guava and its
        // failureaccess); the rest of gRPC-java and protobuf stay out.
        ModuleLayer layer = ModuleLayers.layer(Set.of("io.homa4j.grpc", SLF4J_SIMPLE), "netty-", "slf4j-api-",
                "slf4j-simple-", "grpc-api-", "guava-", "failureaccess-");

        Module grpc = layer.findModule("io.homa4j.grpc").orElseThrow();
        Module grpcApi = layer.findModule("io.grpc").orElseThrow();
        assertTrue(grpcApi.getDescriptor().isAutomatic());
        assertEquals(Set.of("io.homa4j.grpc"), exports(grpc));
        assertTrue(grpc.getPackages().contains("io.homa4j.grpc.internal"));
        assertFalse(grpc.isExported("io.homa4j.grpc.internal"));
        // what a user of the module reads through it: gRPC's API and Homa4J's endpoint
        Set<String> transitive = new TreeSet<>();
        for (ModuleDescriptor.Requires r : grpc.getDescriptor().requires()) {
            if (r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)) {
                transitive.add(r.name());
            }
        }
        assertEquals(Set.of("io.grpc", "io.homa4j.netty"), transitive);

        // The builders link inside the layer: a server on an ephemeral loopback port and a channel to it, each
        // with its own endpoint, started and shut down through gRPC's own Server and ManagedChannel.
        ClassLoader loader = layer.findLoader("io.homa4j.grpc");
        Class<?> serverBuilder = loader.loadClass("io.homa4j.grpc.HomaServerBuilder");
        Class<?> channelBuilder = loader.loadClass("io.homa4j.grpc.HomaChannelBuilder");
        assertEquals(grpc, serverBuilder.getModule());
        Class<?> serverType = loader.loadClass("io.grpc.Server");
        Class<?> channelType = loader.loadClass("io.grpc.ManagedChannel");
        assertEquals(grpcApi, channelType.getModule());

        Object server = serverBuilder.getMethod("build").invoke(serverBuilder.getMethod("forAddress",
                InetAddress.class, int.class).invoke(null, InetAddress.getLoopbackAddress(), 0));
        Object channel = null;
        try {
            serverType.getMethod("start").invoke(server);
            int port = (int) serverType.getMethod("getPort").invoke(server);
            assertTrue(port > 0, "bound port " + port);
            channel = channelBuilder.getMethod("build").invoke(channelBuilder
                    .getMethod("forAddress", String.class, int.class).invoke(null, "127.0.0.1", port));
            assertEquals("io.homa4j.grpc.internal", channel.getClass().getPackageName());
            assertEquals(grpc, channel.getClass().getModule());
        } finally {
            if (channel != null) {
                channelType.getMethod("shutdownNow").invoke(channel);
                assertTrue((boolean) channelType.getMethod("awaitTermination", long.class, TimeUnit.class)
                        .invoke(channel, 10L, TimeUnit.SECONDS));
            }
            serverType.getMethod("shutdownNow").invoke(server);
            assertTrue((boolean) serverType.getMethod("awaitTermination", long.class, TimeUnit.class)
                    .invoke(server, 10L, TimeUnit.SECONDS));
        }
    }
}
