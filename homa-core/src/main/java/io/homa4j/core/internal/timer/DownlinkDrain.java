package io.homa4j.core.internal.timer;

/**
 * What the DATA arriving at this host proves about the switch port in front of it: when each priority level's
 * queue (and every level above it) was last empty. A receiver that misses granted bytes cannot tell from silence
 * alone whether they were lost or wait at that port behind higher levels (a strict-priority port serves a level
 * only while every higher one is empty, so under load bytes granted at a low level can wait longer than any RESEND
 * timeout, and each RESEND would draw a copy of packets that are only queued). Two events can tell:
 *
 * <ul>
 *   <li>a DATA packet sent at level {@code l} arrives (the sender writes the level into the packet): the port
 *       started it only when every level above {@code l} was empty, so levels {@code > l} were drained then;</li>
 *   <li>a timer tick in which DATA came in at under half the link rate: the port sends at the full rate while it
 *       holds anything, so at some moment of that tick it held nothing, and every level was drained. The rate is
 *       taken over at least two full packets' time on the link ({@link #minWindowNanos}): a tick may follow the
 *       last one after a fraction of a tick (a late tick is followed by an early one), and on a slow link that
 *       can be shorter than one packet, so a busy port would seem idle in it.</li>
 * </ul>
 *
 * A silent tick of a message whose missing bytes were sent at level {@code p} or above counts towards a RESEND
 * when level {@code p} was drained during it ({@link #drainedDuringLastTick}): had those bytes waited at the port
 * then, they would have come. Packets whose sender did not say their level prove nothing but still count towards
 * the rate. Engine thread only; owned by the {@code Receiver}.
 */
public final class DownlinkDrain {
    /**
     * When a DATA packet sent at each level last arrived. Level {@code l} was drained at the latest such arrival
     * below {@code l}, or at {@link #allDrainedAtNanos}, whichever is later: kept this way, a packet costs one
     * store, and the walk over the levels below is left to {@link #drainedDuringLastTick}, which the timers ask
     * once per tick for each silent message, far less often than packets arrive.
     */
    private final long[] arrivedAtNanos;
    /** The last tick in which DATA came in at under half the link rate, so that every level was drained. */
    private long allDrainedAtNanos = Long.MIN_VALUE;
    private final int linkMbps;
    /**
     * The shortest interval the rate is taken over: two full packets on the link. A busy port delivers at least
     * two whole packets in it (each over half of the interval's link bytes), so it never seems idle.
     */
    private final long minWindowNanos;
    /** Wire bytes of DATA that arrived since {@link #windowStartNanos}. */
    private long bytesInWindow;
    /** Where the interval the rate is taken over began: the tick that last judged it. */
    private long windowStartNanos;
    private long lastTickNanos;
    private long previousTickNanos;

    /**
     * @param levels             priority levels in use
     * @param linkMbps           this host's link rate
     * @param maxPacketWireBytes a full-size packet on the link, headers and framing included
     * @param nowNanos           the engine's start
     */
    public DownlinkDrain(int levels, int linkMbps, int maxPacketWireBytes, long nowNanos) {
        this.arrivedAtNanos = new long[levels];
        this.linkMbps = linkMbps;
        // Mbit/s = bits per microsecond: bytes x 8,000 / Mbit/s = ns
        this.minWindowNanos = 2L * maxPacketWireBytes * 8_000 / Math.max(1, linkMbps);
        this.windowStartNanos = nowNanos;
        this.lastTickNanos = nowNanos;
        this.previousTickNanos = nowNanos;
        java.util.Arrays.fill(arrivedAtNanos, Long.MIN_VALUE);
    }

    /**
     * A DATA packet of {@code wireBytes} that its sender sent at {@code sentLevel} (-1: not said) arrived at
     * {@code nowNanos}.
     */
    public void dataArrived(int sentLevel, int wireBytes, long nowNanos) {
        bytesInWindow += wireBytes;
        if (sentLevel >= 0 && sentLevel < arrivedAtNanos.length) {
            arrivedAtNanos[sentLevel] = nowNanos;
        }
    }

    /**
     * A timer tick at {@code nowNanos}, before the RPCs' timers ask {@link #drainedDuringLastTick}: a tick with
     * DATA at under half the link rate since the rate was last judged, at least {@link #minWindowNanos} ago,
     * drained every level. A tick sooner than that judges nothing and leaves the bytes counting.
     */
    public void tick(long nowNanos) {
        previousTickNanos = lastTickNanos;
        lastTickNanos = nowNanos;
        long elapsed = Math.min(Math.max(0, nowNanos - windowStartNanos), 1_000_000_000L); // no overflow after idling
        if (elapsed == 0 || elapsed < minWindowNanos) {
            return;
        }
        // link bytes in the interval: Mbit/s = bits per microsecond, so bytes = ns x Mbit/s / 8,000
        if (bytesInWindow * 2 * 8_000 < elapsed * linkMbps) {
            allDrainedAtNanos = nowNanos;
        }
        windowStartNanos = nowNanos;
        bytesInWindow = 0;
    }

    /**
     * Whether the port's queue at {@code level} and every level above it was empty at some moment since the tick
     * before the latest one (levels outside the range count as the nearest one).
     */
    public boolean drainedDuringLastTick(int level) {
        if (allDrainedAtNanos > previousTickNanos) {
            return true;
        }
        int l = Math.max(0, Math.min(level, arrivedAtNanos.length - 1));
        for (int below = 0; below < l; below++) {
            if (arrivedAtNanos[below] > previousTickNanos) {
                return true; // the port sent a packet of a lower level then: level l and all above were empty
            }
        }
        return false;
    }
}
