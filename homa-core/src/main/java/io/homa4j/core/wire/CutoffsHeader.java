package io.homa4j.core.wire;

import io.homa4j.core.Unstable;
import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a CUTOFFS packet: a receiver tells a sender which unscheduled priority to use for a message of
 * a given length. {@code cutoff[L]} is the longest message that uses level L; 0 means level L is not used for
 * unscheduled bytes. The sender picks the highest level whose cutoff is at least the message length, and tags
 * its DATA with {@code version} so the receiver notices a sender using stale cutoffs.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |             common header (magic, version, type, RPC id = 0)   |   0..11
 * +---------------------------------------------------------------+
 * |                    cutoff for level 0                         |  12
 * +---------------------------------------------------------------+
 * |                          ...                                  |
 * +---------------------------------------------------------------+
 * |                    cutoff for level 7                         |  40
 * +-------------------------------+-------------------------------+
 * |        cutoffs version        |           reserved            |  44
 * +-------------------------------+-------------------------------+
 * </pre>
 */
@Unstable("packet flyweights for tests and tools")
public final class CutoffsHeader extends CommonHeader {
    public static final int LEVELS = 8;
    public static final int CUTOFFS_OFFSET = 12;
    public static final int VERSION_FIELD_OFFSET = 44;
    public static final int LENGTH = 48;

    @Override
    public CutoffsHeader wrap(ByteBuf buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** Cutoff of level {@code level} (0..7); signed read, negative values are malformed. */
    public int cutoff(int level) {
        return buffer.getInt(base + CUTOFFS_OFFSET + 4 * level);
    }

    public CutoffsHeader cutoff(int level, int v) {
        buffer.setInt(base + CUTOFFS_OFFSET + 4 * level, v);
        return this;
    }

    public int cutoffsVersion() {
        return buffer.getUnsignedShort(base + VERSION_FIELD_OFFSET);
    }

    public CutoffsHeader cutoffsVersion(int v) {
        buffer.setShort(base + VERSION_FIELD_OFFSET, v);
        buffer.setShort(base + VERSION_FIELD_OFFSET + 2, 0);
        return this;
    }
}
