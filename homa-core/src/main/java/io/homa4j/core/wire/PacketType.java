package io.homa4j.core.wire;

/**
 * The Homa packet types and their one-byte wire codes. The codes are part of the wire format
 * (docs/protocol.md) and never change meaning.
 */
public enum PacketType {
    /** A slice of a request or response message. */
    DATA(0x10, DataHeader.LENGTH),
    /** Receiver to sender: you may send up to this offset, at this priority. */
    GRANT(0x11, GrantHeader.LENGTH),
    /** Receiver to sender: send this range again. */
    RESEND(0x12, ResendHeader.LENGTH),
    /** Either side: I have no state for this RPC. */
    RPC_UNKNOWN(0x13, RpcUnknownHeader.LENGTH),
    /** Server to client: alive, still working on the request. */
    BUSY(0x14, CommonHeader.LENGTH),
    /** Receiver to sender: the unscheduled priority cutoffs to use towards me. */
    CUTOFFS(0x15, CutoffsHeader.LENGTH),
    /** Server to client: the response is sent, confirm you have it. */
    NEED_ACK(0x16, CommonHeader.LENGTH),
    /** Client to server: these RPCs are finished, free their state. */
    ACK(0x17, AckHeader.LENGTH),
    /**
     * Any sender, from a port of its own: "does anything listen at this port?". Ignored by the receiver (counted
     * only); what matters is the ICMP port unreachable a closed port draws, which fails the sender's calls to
     * that port within a round trip (docs/protocol.md, PROBE).
     */
    PROBE(0x18, CommonHeader.LENGTH);

    private static final PacketType[] BY_CODE = new PacketType[256];

    static {
        for (PacketType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int minLength;

    PacketType(int code, int minLength) {
        this.code = code;
        this.minLength = minLength;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** Length of this type's fixed header, common header included: the shortest valid packet of this type. */
    public int minLength() {
        return minLength;
    }

    /** The type with wire code {@code code} (0..255), or null for an unknown code. */
    public static PacketType fromCode(int code) {
        return BY_CODE[code & 0xFF];
    }
}
