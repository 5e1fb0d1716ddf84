package io.homa4j;

import io.homa4j.testing.ModuleLayers;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static io.homa4j.testing.ModuleLayers.exports;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tests run on the class path (see the parent POM), so this one proves the module descriptors of homa-core and
 * homa-netty on a module path: both resolve against Netty's and SLF4J's own modules in a layer of their own,
 * export exactly their API packages, and keep the internal packages to themselves.
 */
class ModuleDescriptorTest {

    @Test
    void modulesResolveAndExportOnlyTheirApi() throws Exception {
        ModuleLayer layer = ModuleLayers.layer(Set.of("io.homa4j.netty"), "netty-", "slf4j-api-");

        Module netty = layer.findModule("io.homa4j.netty").orElseThrow();
        Module core = layer.findModule("io.homa4j.core").orElseThrow();
        assertEquals(Set.of("io.homa4j", "io.homa4j.transport", "io.homa4j.faults"), exports(netty));
        assertEquals(Set.of("io.homa4j.core", "io.homa4j.core.metrics", "io.homa4j.core.wire",
                "io.homa4j.core.sim"), exports(core));
        assertTrue(netty.getPackages().contains("io.homa4j.transport.internal"));
        assertFalse(netty.isExported("io.homa4j.transport.internal"));
        assertFalse(netty.isExported("io.homa4j.faults.internal"));
        assertTrue(core.getPackages().contains("io.homa4j.core.internal.rpc"));
        for (String internal : core.getPackages()) {
            if (internal.contains(".internal")) {
                assertFalse(core.isExported(internal), internal);
            }
        }
        // The API links inside the layer: the endpoint class and the engine load from the modules' own loader.
        Class<?> endpoint = layer.findLoader("io.homa4j.netty").loadClass("io.homa4j.HomaEndpoint");
        assertEquals(netty, endpoint.getModule());
        assertNotNull(endpoint.getMethod("builder"));
        assertEquals(core, layer.findLoader("io.homa4j.core").loadClass("io.homa4j.core.HomaEngine").getModule());
    }
}
