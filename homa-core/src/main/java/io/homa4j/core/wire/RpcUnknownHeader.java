package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over an RPC_UNKNOWN packet: the sender holds no state for the RPC. It carries the sender engine's
 * age (nanoseconds since it started), so a client can tell "the server never got my request" (the server is
 * older than the call) from "the server restarted since" (it may have run the handler); see docs/protocol.md.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id)       |   0..11
 * +---------------------------------------------------------------+
 * |                                                               |  12
 * +          sender engine age (nanoseconds, unsigned)            +
 * |                                                               |  16
 * +---------------------------------------------------------------+
 * </pre>
 */
@Unstable("packet flyweights for tests and tools")
public final class RpcUnknownHeader extends CommonHeader {
    public static final int AGE_OFFSET = 12;
    public static final int LENGTH = 20;

    @Override
    public RpcUnknownHeader wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    public long ageNanos() {
        return buffer.getLong(base + AGE_OFFSET);
    }

    public RpcUnknownHeader ageNanos(long v) {
        buffer.setLong(base + AGE_OFFSET, v);
        return this;
    }
}
