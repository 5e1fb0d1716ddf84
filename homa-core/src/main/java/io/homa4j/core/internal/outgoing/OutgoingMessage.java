package io.homa4j.core.internal.outgoing;

import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.order.IndexedHeap;
import io.homa4j.core.internal.order.Ranked;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;

/**
 * One request or response being sent: its payload, how far it has been transmitted, how far the receiver lets
 * it go (unscheduled bytes plus grants), the priorities to use, and ranges a RESEND asked for again.
 * Owned by the {@link Transmitter}; engine thread only.
 */
public final class OutgoingMessage implements Ranked {
    /** Pending retransmit ranges beyond this are merged into one. */
    private static final int MAX_RETRANSMIT_RANGES = 8;

    private final MessageOwner owner;
    private final ByteBuf payload;
    private final int length;
    private final int flags;
    private final long sequence;
    private final int unscheduledLimit;
    private final int unscheduledPriority;
    private int nextOffset;
    private int granted;
    private int scheduledPriority;
    private boolean emptySent;
    /** The ranges queued for retransmission; allocated by the first, as most messages never lose a packet. */
    private int[] retransmitStarts;
    private int[] retransmitEnds;
    private int retransmitCount;
    private int retransmitPriority;
    private boolean released;
    private boolean unreadable;
    /** Where this message is in the transmitter's next-to-send order ({@link IndexedHeap#ABSENT}: not queued). */
    private int srptPosition = IndexedHeap.ABSENT;
    /** Where this message is in the transmitter's oldest-first order ({@link IndexedHeap#ABSENT}: not queued). */
    private int agePosition = IndexedHeap.ABSENT;
    boolean inRetransmitQueue;

    /** This message's place in the transmitter's next-to-send order. */
    static final IndexedHeap.Position<OutgoingMessage> SRPT_POSITION =
            IndexedHeap.Position.of(m -> m.srptPosition, (m, index) -> m.srptPosition = index);

    /** This message's place in the transmitter's oldest-first order (the FIFO share's pick). */
    static final IndexedHeap.Position<OutgoingMessage> AGE_POSITION =
            IndexedHeap.Position.of(m -> m.agePosition, (m, index) -> m.agePosition = index);

    /**
     * @param owner               the RPC
     * @param payload             the message; owned by this object until {@link #release}
     * @param flags               DATA flags for every packet (e.g. ERROR)
     * @param sequence            creation order (SRPT ties and the pacer's FIFO share go to the oldest)
     * @param unscheduledBytes    bytes sendable before any grant
     * @param unscheduledPriority level for those bytes (from the receiver's cutoffs)
     */
    public OutgoingMessage(MessageOwner owner, ByteBuf payload, int flags, long sequence, int unscheduledBytes,
                           int unscheduledPriority) {
        this.owner = owner;
        this.payload = payload;
        this.length = payload.readableBytes();
        this.flags = flags;
        this.sequence = sequence;
        this.unscheduledLimit = Math.min(length, unscheduledBytes);
        this.unscheduledPriority = unscheduledPriority;
        this.granted = unscheduledLimit;
        this.scheduledPriority = 0;
    }

    public MessageOwner owner() {
        return owner;
    }

    /** How long the receiver's data has been taking to arrive, queueing included (0: not measured yet). */
    long peerTimeoutNanos() {
        return owner.peerRtt().timeoutNanos();
    }

    public ByteBuf payload() {
        return payload;
    }

    public int length() {
        return length;
    }

    public int flags() {
        return flags;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    /**
     * The two latest checkpoints of the send progress, for {@link #settledOffset}, taken at least a checkpoint
     * spacing apart: every byte below a checkpoint's offset had been sent by its time.
     */
    private int olderCheckpointOffset;
    private long olderCheckpointNanos = Long.MIN_VALUE / 2;
    private int checkpointOffset;
    private long checkpointNanos = Long.MIN_VALUE / 2;
    private long lastSentNanos = Long.MIN_VALUE / 2;

    public int nextOffset() {
        return nextOffset;
    }

    public int granted() {
        return granted;
    }

    /** Bytes never transmitted yet: the SRPT key on the sender. */
    @Override
    public int remainingBytes() {
        return length - nextOffset;
    }

    /** Whether new (never sent) bytes may go now. */
    public boolean hasSendableBytes() {
        if (unreadable) {
            return false;
        }
        return length == 0 ? !emptySent : nextOffset < granted;
    }

    /** Whether every byte went out at least once. */
    public boolean allSent() {
        return length == 0 ? emptySent : nextOffset >= length;
    }

    /** Whether the sender itself is the reason this message is not progressing (granted bytes not yet sent). */
    public boolean hasUnsentGrantedBytes() {
        return hasSendableBytes() || hasRetransmit();
    }

    /** Priority level for a new packet starting at {@code offset}. */
    int priorityAt(int offset) {
        return offset < unscheduledLimit || length == 0 ? unscheduledPriority : scheduledPriority;
    }

    /** Raises the granted offset; returns true when something new became sendable. */
    boolean grant(int offset, int priority) {
        scheduledPriority = priority;
        int g = Math.min(length, offset);
        if (g > granted) {
            boolean was = hasSendableBytes();
            granted = g;
            return !was && hasSendableBytes();
        }
        return false;
    }

    /** Raises the granted offset without changing the scheduled priority (a RESEND implies a grant). */
    void extendGrant(int offset) {
        granted = Math.max(granted, Math.min(length, offset));
    }

    /**
     * Length of the next new segment, at most {@code maxPayload}: a full packet whenever its first byte is granted,
     * as the Linux module sends, even if the grant ends inside it. Cutting the packet at the granted offset
     * instead doubled the packet count of scheduled bytes: a grant rarely falls on a packet boundary, so every
     * grant made one full packet and one fragment (netlab, one 1 MB flow: 2.0 DATA packets per GRANT). The
     * receiver takes the overshoot, at most one packet per message, as granted.
     */
    int nextSegmentLength(int maxPayload) {
        return Math.min(maxPayload, length - nextOffset);
    }

    /** Records a new segment as sent; a new checkpoint once the latest is {@code checkpointSpacingNanos} old. */
    void advance(int segment, long nowNanos, long checkpointSpacingNanos) {
        if (length == 0) {
            emptySent = true;
            return;
        }
        if (nowNanos - checkpointNanos >= checkpointSpacingNanos) {
            olderCheckpointOffset = checkpointOffset;
            olderCheckpointNanos = checkpointNanos;
            checkpointOffset = nextOffset;
            checkpointNanos = nowNanos;
        }
        nextOffset += segment;
        lastSentNanos = nowNanos;
    }

    /**
     * The offset below which every byte is known to have been sent at least {@code windowNanos} before
     * {@code atNanos} (so a receiver that still missed one then has lost it); bytes from there to
     * {@link #nextOffset()} may still have been on their way. Two checkpoints make it conservative: with a window
     * of the checkpoint spacing, a byte counts as settled between one and two windows after it left; with a wider
     * window (a host that lags) bytes past the checkpoints old enough count as on their way.
     */
    int settledOffset(long atNanos, long windowNanos) {
        if (atNanos - lastSentNanos >= windowNanos) {
            return nextOffset; // nothing sent lately
        }
        if (atNanos - checkpointNanos >= windowNanos) {
            return checkpointOffset;
        }
        return atNanos - olderCheckpointNanos >= windowNanos ? olderCheckpointOffset : 0;
    }

    /** Queues {@code [start, end)} (already sent once) for retransmission; returns false if nothing to do. */
    boolean addRetransmit(int start, int end, int priority) {
        if (length == 0) {
            if (!emptySent) {
                return false;
            }
            emptySent = false; // send the one empty packet again, as new
            return true;
        }
        end = Math.min(end, nextOffset);
        if (start >= end) {
            return false;
        }
        retransmitPriority = priority;
        if (retransmitStarts == null) {
            retransmitStarts = new int[MAX_RETRANSMIT_RANGES];
            retransmitEnds = new int[MAX_RETRANSMIT_RANGES];
        }
        for (int i = 0; i < retransmitCount; i++) {
            if (start <= retransmitEnds[i] && end >= retransmitStarts[i]) {
                retransmitStarts[i] = Math.min(start, retransmitStarts[i]);
                retransmitEnds[i] = Math.max(end, retransmitEnds[i]);
                return true;
            }
        }
        if (retransmitCount == MAX_RETRANSMIT_RANGES) {
            int last = retransmitCount - 1;
            retransmitStarts[last] = Math.min(start, retransmitStarts[last]);
            retransmitEnds[last] = Math.max(end, retransmitEnds[last]);
            return true;
        }
        retransmitStarts[retransmitCount] = start;
        retransmitEnds[retransmitCount] = end;
        retransmitCount++;
        return true;
    }

    boolean hasRetransmit() {
        return retransmitCount > 0 && !unreadable;
    }

    int retransmitOffset() {
        return retransmitStarts[0];
    }

    int retransmitSegmentLength(int maxPayload) {
        return Math.min(maxPayload, retransmitEnds[0] - retransmitStarts[0]);
    }

    int retransmitPriority() {
        return retransmitPriority;
    }

    void retransmitted(int segment) {
        retransmitStarts[0] += segment;
        if (retransmitStarts[0] >= retransmitEnds[0]) {
            retransmitCount--;
            System.arraycopy(retransmitStarts, 1, retransmitStarts, 0, retransmitCount);
            System.arraycopy(retransmitEnds, 1, retransmitEnds, 0, retransmitCount);
        }
    }

    /** Back to nothing sent: the client restarts the RPC after the server lost it. */
    void rewind() {
        nextOffset = 0;
        olderCheckpointOffset = 0;
        checkpointOffset = 0;
        emptySent = false;
        granted = unscheduledLimit;
        retransmitCount = 0;
    }

    /**
     * Frees the payload: the reference handed over with it and the engine's own guard reference (see
     * {@code Outbound.send}). Idempotent.
     *
     * @return true when the application had released the payload after handing it over (only the guard was
     *         left to release)
     */
    public boolean release() {
        if (released) {
            return false;
        }
        released = true;
        if (payload.refCnt() >= 2) {
            try {
                payload.release(2);
                return false;
            } catch (IllegalReferenceCountException releasedMeanwhile) {
                // the application released it on another thread between the two calls; fall through
            }
        }
        if (payload.refCnt() > 0) {
            payload.release();
        }
        return true;
    }

    /** Marks the payload as unreadable: the message will never be sent again (its RPC is failed instead). */
    void markUnreadable() {
        unreadable = true;
    }

    /** Whether the payload turned out unreadable while being sent. */
    public boolean unreadable() {
        return unreadable;
    }

    @Override
    public String toString() {
        return "OutgoingMessage{" + owner + " " + nextOffset + "/" + granted + "/" + length + '}';
    }
}
