package io.homa4j.bench.simulate;

import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.DataHeader;

import java.util.Locale;

/**
 * What the offered load counts. Each host's link carries its own requests plus its responses to other hosts'
 * requests (echoes, as long as the requests), so a load {@code x} means: requests and responses together fill a
 * fraction {@code x} of each host link, i.e. each host issues {@code x * rate / (2 * 8 * bytesPerMessage)}
 * requests per second.
 */
public enum LoadBasis {
    /** Message bytes plus each DATA packet's headers (Homa 40 B + IPv4/UDP 28 B): how busy the links are. */
    WIRE,
    /** Message bytes only, as the Linux module's cp_vs_tcp counts its target rate. */
    DATA;

    private static final int SAMPLES = 200_000;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The name on the command line: {@link #id()}. */
    @Override
    public String toString() {
        return id();
    }

    /** Mean bytes one message of {@code workload} puts on a link under this basis. */
    public double bytesPerMessage(Workload workload, int payloadPerPacket) {
        return this == DATA ? workload.meanBytes() : meanWireBytes(workload, payloadPerPacket);
    }

    /**
     * Mean wire bytes of one message's DATA packets: the workload's quantile function integrated by the midpoint
     * rule over {@value #SAMPLES} equal slices (deterministic; the packet count is a step function of length).
     */
    public static double meanWireBytes(Workload workload, int payloadPerPacket) {
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            long length = workload.quantile((i + 0.5) / SAMPLES);
            long packets = Math.max(1, (length + payloadPerPacket - 1) / payloadPerPacket);
            sum += length + packets * (DataHeader.LENGTH + HomaConfig.IP_UDP_HEADER_BYTES);
        }
        return sum / SAMPLES;
    }
}
