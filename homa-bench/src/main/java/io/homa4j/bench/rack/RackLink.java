package io.homa4j.bench.rack;

/** The emulated rack's links (netlab's veth pairs and the shapers on them), as the bench sizes things by them. */
public final class RackLink {
    /**
     * A full Ethernet frame on the rack's links: a 1,500 B MTU and the 14 B Ethernet header, as the shapers count
     * bytes (netlab.sh's quanta and queue limits use the same figure).
     */
    public static final int FULL_FRAME_BYTES = 1_514;

    private RackLink() {
    }
}
