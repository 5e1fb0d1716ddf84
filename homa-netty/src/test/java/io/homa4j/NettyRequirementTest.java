package io.homa4j;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NettyRequirementTest {

    @Test
    void theBuildsOwnClassPathPasses() {
        assertDoesNotThrow(NettyRequirement::checkOnce);
    }

    @Test
    void aNetty41ArtifactAmongTheOthersIsNamed() {
        Map<String, String> versions = new TreeMap<>();
        versions.put("netty-transport", "4.2.18.Final");
        versions.put("netty-buffer", "4.1.118.Final");
        versions.put("netty-common", "4.2.18.Final");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> NettyRequirement.check(versions));
        assertTrue(e.getMessage().contains("netty-buffer 4.1.118.Final"), e.getMessage());
        assertTrue(!e.getMessage().contains("netty-transport"), e.getMessage());
        assertTrue(e.getMessage().contains("homa4j-bom"), e.getMessage());
    }

    @Test
    void newerReleasesAndUnreadableVersionsPass() {
        assertDoesNotThrow(() -> NettyRequirement.check(Map.of("netty-common", "4.3.0.Final",
                "netty-buffer", "5.0.0.Alpha1", "netty-handler", "unknown")));
        assertThrows(IllegalStateException.class, () -> NettyRequirement.check(Map.of("netty-common", "3.10.6.Final")));
    }
}
