package io.homa4j.core.sim;

/**
 * Time on the network's links, in picoseconds: how long a packet's wire bytes take to serialize at the configured
 * rate (rounded up), and the conversions between virtual nanoseconds and picoseconds. Immutable.
 */
final class LinkTiming {
    static final long PICOS_PER_NANO = 1_000;
    private static final long BIT_PICOS_PER_BYTE = 8_000_000_000_000L; // 8 bits x 1e12 ps/s

    private final long linkBitsPerSecond;
    /**
     * Serialization time of one byte when it is a whole number of picoseconds (80 at 100 Gb/s, 800 at 10 Gb/s),
     * else 0: then a multiplication gives the exact time and the event loop skips a 64-bit division per packet.
     */
    private final long picosPerByte;
    /** Links of {@link NetworkConfig#UNLIMITED} rate: no serialization time, so no queue anywhere. */
    private final boolean idealLinks;

    LinkTiming(long linkBitsPerSecond) {
        this.linkBitsPerSecond = linkBitsPerSecond;
        this.picosPerByte = BIT_PICOS_PER_BYTE % linkBitsPerSecond == 0 ? BIT_PICOS_PER_BYTE / linkBitsPerSecond : 0;
        this.idealLinks = linkBitsPerSecond == NetworkConfig.UNLIMITED;
    }

    /** Serialization time of {@code wireBytes}, rounded up to whole picoseconds. */
    long wirePicos(int wireBytes) {
        if (picosPerByte > 0) {
            return wireBytes * picosPerByte;
        }
        if (idealLinks) {
            return 0;
        }
        return (wireBytes * BIT_PICOS_PER_BYTE + linkBitsPerSecond - 1) / linkBitsPerSecond;
    }

    /** The bytes a link carries in {@code picos}. */
    long bytesForPicos(long picos) {
        return Math.round(picos * (double) linkBitsPerSecond / BIT_PICOS_PER_BYTE);
    }

    /** {@code nanos} in picoseconds, saturating at {@code Long.MAX_VALUE}. */
    static long toPicos(long nanos) {
        return nanos > Long.MAX_VALUE / PICOS_PER_NANO ? Long.MAX_VALUE : nanos * PICOS_PER_NANO;
    }
}
