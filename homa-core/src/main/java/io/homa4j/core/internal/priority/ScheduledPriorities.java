package io.homa4j.core.internal.priority;

/**
 * Priority level of the scheduled bytes a receiver grants, by the message's SRPT rank. Levels 0 ..
 * {@code highestLevel} are reserved for scheduled traffic. When the granted messages fit, the best-ranked one
 * gets level N-1 rather than the top, leaving room above for a newly arriving shorter message to preempt
 * (as the Linux module does). Immutable.
 */
public final class ScheduledPriorities {
    private final int highestLevel;

    public ScheduledPriorities(int highestLevel) {
        this.highestLevel = Math.max(0, highestLevel);
    }

    /** Level for the message of rank {@code rank} (0 = fewest bytes left) among {@code granted} messages. */
    public int levelFor(int rank, int granted) {
        int levels = highestLevel + 1;
        if (granted <= levels) {
            return Math.max(0, granted - 1 - rank);
        }
        return Math.max(0, highestLevel - rank);
    }

    public int highestLevel() {
        return highestLevel;
    }
}
