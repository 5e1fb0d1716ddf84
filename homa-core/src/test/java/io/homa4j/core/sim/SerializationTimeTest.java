package io.homa4j.core.sim;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Serialization time is ceil(wire bits / rate) in picoseconds, whether or not a byte is a whole number of them. */
class SerializationTimeTest {

    @Test
    void isTheExactCeilingAtRatesWithAndWithoutWholePicosecondsPerByte() {
        long[] rates = {100_000_000_000L, 10_000_000_000L, 25_000_000_000L, 400_000_000_000L, 1_000_000_000L,
                3_000_000_000L, 40_000_000_000L, 7_000_000_007L, 123_456_789L};
        BigInteger bitPicos = BigInteger.valueOf(8_000_000_000_000L);
        for (long rate : rates) {
            NetworkConfig config = NetworkConfig.builder().hosts(2).linkBitsPerSecond(rate).build();
            try (SimulatedNetwork network = new SimulatedNetwork(config)) {
                for (int payload = 0; payload <= 66_000; payload += payload < 2_000 ? 1 : 997) {
                    BigInteger bits = BigInteger.valueOf(payload + config.wireOverheadBytes()).multiply(bitPicos);
                    BigInteger[] qr = bits.divideAndRemainder(BigInteger.valueOf(rate));
                    long expected = qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
                    assertEquals(expected, network.serializationPicos(payload), rate + " b/s, " + payload + " B");
                }
            }
        }
    }
}
