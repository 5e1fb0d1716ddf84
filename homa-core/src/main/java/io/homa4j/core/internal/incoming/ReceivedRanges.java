package io.homa4j.core.internal.incoming;

import java.util.Arrays;

/**
 * The byte ranges of a message received so far, as sorted, disjoint, non-adjacent half-open intervals. Adding a
 * range reports how many bytes were new, which is how duplicates and overlaps are detected. Bounded: at most
 * {@code maxRanges} intervals are kept (a message with more holes is rejected by the caller). Not thread-safe.
 */
final class ReceivedRanges {
    private int[] starts = new int[4];
    private int[] ends = new int[4];
    private int count;
    private final int maxRanges;

    public ReceivedRanges(int maxRanges) {
        this.maxRanges = maxRanges;
    }

    /**
     * Adds {@code [start, end)}.
     *
     * @return bytes not covered before (0 for a pure duplicate), or -1 when the range would need more than
     *         {@code maxRanges} intervals (nothing is added then)
     */
    public int add(int start, int end) {
        if (end <= start) {
            return 0;
        }
        if (count > 0 && start == ends[count - 1]) {
            // The usual case, the next packet in order: it extends the last interval, and nothing lies past it.
            ends[count - 1] = end;
            return end - start;
        }
        // first interval whose end >= start (may merge), last interval whose start <= end
        int lo = lowerBoundEnd(start);
        int hi = lo;
        while (hi < count && starts[hi] <= end) {
            hi++;
        }
        if (lo == hi) { // no overlap or adjacency: insert
            if (count == maxRanges) {
                return -1;
            }
            ensureCapacity(count + 1);
            System.arraycopy(starts, lo, starts, lo + 1, count - lo);
            System.arraycopy(ends, lo, ends, lo + 1, count - lo);
            starts[lo] = start;
            ends[lo] = end;
            count++;
            return end - start;
        }
        int covered = 0;
        for (int i = lo; i < hi; i++) {
            covered += Math.min(ends[i], end) - Math.max(starts[i], start);
        }
        int newStart = Math.min(starts[lo], start);
        int newEnd = Math.max(ends[hi - 1], end);
        int fresh = (end - start) - Math.max(0, covered);
        starts[lo] = newStart;
        ends[lo] = newEnd;
        int removed = hi - lo - 1;
        if (removed > 0) {
            System.arraycopy(starts, hi, starts, lo + 1, count - hi);
            System.arraycopy(ends, hi, ends, lo + 1, count - hi);
            count -= removed;
        }
        return fresh;
    }

    private int lowerBoundEnd(int start) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] < start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private void ensureCapacity(int n) {
        if (n > starts.length) {
            int cap = Math.min(maxRanges, Math.max(n, starts.length * 2));
            starts = Arrays.copyOf(starts, cap);
            ends = Arrays.copyOf(ends, cap);
        }
    }

    /** Length of the prefix {@code [0, x)} received contiguously. */
    public int contiguousPrefix() {
        return count > 0 && starts[0] == 0 ? ends[0] : 0;
    }

    /** Visits up to {@code max} missing ranges below {@code limit}; returns how many were visited. */
    public int forEachGap(int limit, int max, IncomingMessage.GapVisitor visitor) {
        int visited = 0;
        int cursor = 0;
        for (int i = 0; i <= count && visited < max && cursor < limit; i++) {
            int nextStart = i < count ? Math.min(starts[i], limit) : limit;
            if (nextStart > cursor) {
                visitor.gap(cursor, nextStart);
                visited++;
            }
            if (i < count) {
                cursor = Math.max(cursor, ends[i]);
            }
        }
        return visited;
    }

    public int intervals() {
        return count;
    }
}
