package io.homa4j.core;

import io.netty.util.internal.PlatformDependent;
import org.slf4j.LoggerFactory;

/**
 * The {@link HomaConfig} defaults that follow from other parameters: the byte budgets from link rate and RTT, the
 * RESEND timeout from the queues granted data can wait in, the buffer cap from the JVM's direct memory.
 */
final class DerivedDefaults {
    /** The JVM's direct-memory limit, read once, and the buffer cap derived from it (logged once). */
    private static final class JvmDirectMemory {
        private static final long CAP;

        static {
            long limit = PlatformDependent.maxDirectMemory();
            CAP = HomaConfig.defaultMaxBufferedBytesTotal(limit);
            LoggerFactory.getLogger(HomaConfig.class).info("maxBufferedBytesTotal defaults to {} bytes: half"
                    + " the JVM's direct-memory limit of {} bytes, at most 1 GiB (set it with"
                    + " HomaConfig.Builder.maxBufferedBytesTotal)", CAP, limit);
        }
    }

    private DerivedDefaults() {
    }

    /** One bandwidth-delay product, at least one full packet. */
    static int unscheduledBytes(int linkMbps, int rttMicros, int onePacket) {
        long bdp = (long) linkMbps * rttMicros / 8; // Mbit/s * us = bits; /8 = bytes
        return (int) Math.min(Integer.MAX_VALUE, Math.max(onePacket, bdp));
    }

    /** The module's 400,000 B at 25 Gb/s is about 8 bandwidth-delay products; keep that ratio. */
    static long maxIncomingBytes(int unscheduledBytes) {
        return 8L * unscheduledBytes;
    }

    /**
     * RESEND timeout for a link rate: at least {@link HomaConfig#DEFAULT_RESEND_TICKS}, and at least twice the
     * longest wait granted data can have without any loss: behind a full pacer queue at its sender, then behind
     * every byte this receiver has granted (maxIncomingBytes) at its switch port. At 10 Gbit/s that is well under
     * 5 ms; at 25 Mbit/s, with the event-loop pacer's bound of 8 packets, it is 7.6 ms, and a 5 ms timeout would ask
     * for data that is only queued, so the RESENDs and their retransmissions would crowd out the data itself.
     */
    static int resendTicks(long pacerMaxQueueNanos, long maxIncomingBytes, int linkMbps, long tickNanos) {
        long queuedNanos = pacerMaxQueueNanos + maxIncomingBytes * 8_000L / linkMbps;
        long ticks = (2 * queuedNanos + tickNanos - 1) / tickNanos;
        return (int) Math.max(HomaConfig.DEFAULT_RESEND_TICKS, Math.min(ticks, Integer.MAX_VALUE));
    }

    /** The default buffer cap of this JVM (see {@link HomaConfig#defaultMaxBufferedBytesTotal}). */
    static long bufferCap() {
        return JvmDirectMemory.CAP;
    }
}
