package io.homa4j.core.sim;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Configuration misuse fails at build time with a message naming the setting. */
class NetworkConfigTest {

    @Test
    void invalidSettingsAreRejectedByName() {
        List<Runnable> bad = List.of(
                () -> NetworkConfig.builder().hosts(0).build(),
                () -> NetworkConfig.builder().hosts(65_535).build(),
                () -> NetworkConfig.builder().linkBitsPerSecond(0).build(),
                () -> NetworkConfig.builder().propagationDelayNanos(-1).build(),
                () -> NetworkConfig.builder().portBufferBytes(0).build(),
                () -> NetworkConfig.builder().lossProbability(1.5).build(),
                () -> NetworkConfig.builder().duplicateProbability(Double.NaN).build(),
                () -> NetworkConfig.builder().reorderProbability(0.1).reorderMaxDelayNanos(0).build(),
                () -> NetworkConfig.builder().udpPort(0).build(),
                () -> NetworkConfig.builder().wireOverheadBytes(-1).build());
        for (Runnable r : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
            assertTrue(e.getMessage().matches("^[a-zA-Z]+ .*|^reordering .*"), e.getMessage());
        }
    }

    @Test
    void ethernetFramingSlowsEveryPacketByItsBytes() {
        NetworkConfig config = NetworkConfig.builder().linkGbps(10)
                .wireOverheadBytes(NetworkConfig.IP_UDP_HEADER_BYTES + NetworkConfig.ETHERNET_FRAMING_BYTES).build();
        try (SimulatedNetwork network = new SimulatedNetwork(config)) {
            assertEquals((1_472 + 28 + 38) * 800L, network.serializationPicos(1_472)); // 800 ps per byte at 10 Gb/s
        }
        assertEquals(config.toString(), config.toBuilder().build().toString());
    }
}
