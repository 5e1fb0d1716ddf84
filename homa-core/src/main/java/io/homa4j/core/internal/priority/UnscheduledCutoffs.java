package io.homa4j.core.internal.priority;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.wire.CutoffsHeader;

import java.util.Arrays;

/**
 * Which priority level the unscheduled bytes of a message use, by message length: shorter messages get higher
 * levels. Receivers own their cutoffs and push them to senders (CUTOFFS); senders keep one instance per peer.
 * Immutable.
 *
 * <p>{@code cutoffByLevel[L]} is the longest message that uses level L; 0 means L carries no unscheduled bytes.
 * With the default 8 levels and cutoffs {200, 2800, 15000}: level 7 &lt;= 200 B, 6 &lt;= 2,800 B, 5 &lt;= 15,000 B,
 * 4 for longer messages; levels 0..3 are left for scheduled bytes.
 */
public final class UnscheduledCutoffs {
    private final int[] cutoffByLevel;
    private final int version;
    private final int lowestUnscheduledLevel;

    public UnscheduledCutoffs(int[] cutoffByLevel, int version) {
        if (cutoffByLevel.length != CutoffsHeader.LEVELS) {
            throw new IllegalArgumentException("need " + CutoffsHeader.LEVELS + " cutoffs");
        }
        this.cutoffByLevel = cutoffByLevel.clone();
        this.version = version;
        int lowest = CutoffsHeader.LEVELS - 1;
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            if (this.cutoffByLevel[level] > 0) {
                lowest = level;
                break;
            }
        }
        this.lowestUnscheduledLevel = lowest;
    }

    /** The cutoffs {@code config} prescribes, as a receiver advertises them. */
    public static UnscheduledCutoffs fromConfig(HomaConfig config, int version) {
        int[] ascending = config.unscheduledCutoffs();
        int top = config.priorityLevels() - 1;
        int levels = Math.min(ascending.length + 1, config.priorityLevels());
        int[] byLevel = new int[CutoffsHeader.LEVELS];
        for (int i = 0; i < levels - 1; i++) {
            byLevel[top - i] = Math.max(1, ascending[i]);
        }
        byLevel[top - (levels - 1)] = Integer.MAX_VALUE;
        return new UnscheduledCutoffs(byLevel, version);
    }

    /**
     * Level for the unscheduled bytes of a {@code messageLength}-byte message, clamped below
     * {@code usableLevels} (the sender's own number of levels).
     */
    public int levelFor(int messageLength, int usableLevels) {
        int level = lowestUnscheduledLevel;
        for (int l = CutoffsHeader.LEVELS - 1; l >= 0; l--) {
            if (cutoffByLevel[l] > 0 && messageLength <= cutoffByLevel[l]) {
                level = l;
                break;
            }
        }
        return Math.min(level, usableLevels - 1);
    }

    /** Highest level left for scheduled bytes: just below the lowest unscheduled level (0 if none is left). */
    public int highestScheduledLevel() {
        return Math.max(0, lowestUnscheduledLevel - 1);
    }

    public int cutoff(int level) {
        return cutoffByLevel[level];
    }

    /** A copy of the per-level cutoffs, wire order. */
    public int[] cutoffByLevel() {
        return cutoffByLevel.clone();
    }

    public int version() {
        return version;
    }

    public boolean sameCutoffs(UnscheduledCutoffs other) {
        return Arrays.equals(cutoffByLevel, other.cutoffByLevel);
    }

    @Override
    public String toString() {
        return "UnscheduledCutoffs{v" + version + " " + Arrays.toString(cutoffByLevel) + '}';
    }
}
