package io.homa4j.core.internal.incoming;

import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.order.Ranked;
import io.homa4j.core.wire.DataHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Reassembly of one incoming request or response, tolerant of reordering and duplicates.
 *
 * <p>Buffering choice: every message gets a buffer, allocated from the packet's allocator, that grows as its
 * bytes arrive (in steps of up to four times the bytes received, up to the message's length; see
 * {@link #growthFor}), and each segment is copied in at its offset. The buffer's capacity is what the message
 * reserves against the buffer limits, and it never exceeds {@link #MAX_RESERVED_PER_RECEIVED} times the bytes
 * actually received, or what this receiver's own GRANTs invited: a first packet claiming 64 MiB reserves about
 * its own size, not 64 MiB, so the memory a sender pins is bounded by what it sends plus what was granted to it.
 * The payload handed to the application pins nothing else: a transport reads datagrams into large shared buffers
 * (a recvmmsg or UDP GRO read is up to 1 MB), and a retained slice of one would keep all of it alive while the
 * application holds a 100-byte request.
 *
 * <p>The buffer is a row of pieces of {@link #PIECE_BYTES} (the last one shorter), handed over as one
 * {@code CompositeByteBuf} when there are several: growing a piece copies at most that piece, not the message so
 * far, and every allocation stays within what Netty's pooled allocator keeps in its per-thread cache (32 KiB by
 * default). One contiguous buffer per message would make a 1 MB echo allocate, and free again, buffers of
 * 0.1-1 MB, which the pool serves from 4 MiB chunks that it frees once empty: a new chunk, zeroed by the JDK, for
 * almost every echo, and a copy of the message so far at every growth.
 *
 * <p>Also carries the counters the {@code grant} package ranks and grants by: bytes granted so far, bytes
 * received, arrival order. Which sets of the grant scheduler the message is in is the scheduler's own state.
 * Engine thread only.
 */
public final class IncomingMessage implements Ranked {
    /**
     * Holes tracked per message: one per 512 bytes of message, between 16 and 4096, so the bookkeeping of a
     * message stays within about 1.6% of the buffer its length reserves. Packets that would need more are dropped
     * ("too fragmented"); honest senders' segments are hundreds of bytes at least.
     */
    static int maxRanges(int length) {
        return Math.max(16, Math.min(4096, length / 512));
    }

    /**
     * Size of a buffer piece: the largest allocation Netty's pooled allocator caches per thread by default
     * ({@code io.netty.allocator.maxCachedBufferCapacity}), so pieces come from and go back to that cache.
     */
    public static final int PIECE_BYTES = 32 * 1024;
    private static final int PIECE_SHIFT = Integer.numberOfTrailingZeros(PIECE_BYTES);
    private static final int PIECE_MASK = PIECE_BYTES - 1;

    /** A message's buffer reserves at most this many times the bytes it has received (counting the new packet). */
    public static final int MAX_RESERVED_PER_RECEIVED = 4;
    /** {@link #accept} result: the buffer could not grow (direct memory exhausted); nothing changed. */
    public static final int ALLOCATION_FAILED = -2;
    /** {@link #growthFor} result: the segment lies too far ahead of the received bytes to reserve for. */
    public static final long TOO_FAR_AHEAD = -1;

    private final MessageOwner owner;
    private final int length;
    private final boolean error;
    private final long sequence;
    /** What the sender could send before any grant from us: the unscheduled bytes. */
    private final int initialGranted;
    private final ReceivedRanges ranges;
    /**
     * The buffer: pieces 0..{@code pieceCount - 1} hold offsets {@code [i x PIECE_BYTES, ...)}; all but the last
     * are {@link #PIECE_BYTES} long. Null until the first segment.
     */
    private ByteBuf firstPiece;
    /** Pieces 1.. at index k - 1; null while there is one piece (most messages fit one: no array for them). */
    private ByteBuf[] laterPieces;
    private int pieceCount;
    /** Sum of the pieces' capacities. */
    private int capacity;
    private boolean emptySeen;
    private int receivedBytes;
    private int granted;
    private boolean senderSilent;
    /** The offset our own GRANTs raised {@link #granted} to (0: none yet); the sender's claims never raise it. */
    private int invited;
    private long reservedBytes;
    /** {@link #granted} before our latest GRANT raised it. */
    private int grantedBeforeLastGrant;
    /** The lowest priority level the bytes still owed may have been sent at (see {@link #owedLevel()}). */
    private int owedLevel;
    /**
     * Whether the grant scheduler counts it among the messages waiting for grants. A field rather than a hash set
     * in the scheduler: it is asked on every DATA packet.
     */
    private boolean awaitingGrants;
    /** Whether it holds one of the grant scheduler's SRPT slots (a field for the same reason). */
    private boolean holdsGrantSlot;

    /**
     * @param owner         the RPC this message belongs to
     * @param length        the message length from the first DATA seen
     * @param error         the ERROR flag from the first DATA seen
     * @param senderGranted the sender's {@code incoming} from that DATA: what it may send unasked
     * @param sequence      arrival order among all incoming messages (grant ties go to the oldest)
     * @param firstLevel    the level the first DATA seen was sent at (its unscheduled bytes'), -1 if not said
     */
    public IncomingMessage(MessageOwner owner, int length, boolean error, int senderGranted, long sequence,
                           int firstLevel) {
        this.owner = owner;
        this.owedLevel = Math.max(0, firstLevel); // not said: the lowest, so only an idle port proves a loss
        this.length = length;
        this.ranges = new ReceivedRanges(maxRanges(length));
        this.error = error;
        this.sequence = sequence;
        this.initialGranted = Math.min(length, senderGranted);
        this.granted = initialGranted;
    }

    /**
     * Bytes a message's buffer must grow by to hold a new segment {@code [offset, offset + segment)}: 0 when it
     * fits, {@link #TOO_FAR_AHEAD} when holding it would reserve more than {@link #MAX_RESERVED_PER_RECEIVED}
     * times the bytes received and the segment lies beyond what our own GRANTs invited. Growth goes to that bound
     * at once (a first segment: its own end), so a message arriving in order grows O(log n) times.
     *
     * <p>Why invited bytes are always kept: a receiver grants a window of up to half its incoming cap ahead of
     * what it has received, so when a message's first bytes are lost (a dropped 64 KB GSO batch) or overtaken by
     * its granted bytes, those arrive with little received; dropping them too turned one lost batch into a lost window
     * (hundreds of KB resent after a RESEND timeout: 6,796 such drops in a 1 MB echo run). What our grants
     * invited is bounded over all messages by the incoming cap, so it cannot be used to pin more memory.
     *
     * @param capacity the buffer's current capacity (0: none yet)
     * @param received bytes of the message received so far
     * @param invited  the offset our GRANTs invited the sender up to (0: none)
     */
    public static long growthFor(int length, int capacity, int received, int invited, int offset, int segment) {
        int end = offset + segment;
        if (end <= capacity) {
            return 0;
        }
        long bound = Math.max(invited, (long) MAX_RESERVED_PER_RECEIVED * ((long) received + segment));
        if (end > bound) {
            return TOO_FAR_AHEAD;
        }
        // A first segment gets a buffer of its own size (a forged first packet pins what it carries); after that
        // the buffer grows straight to what the bound allows (four times the bytes received, or what our GRANTs
        // invited): every growth allocates and copies the last piece, so few large steps cost less than doubling.
        long target = capacity == 0 ? end : Math.min(length, bound);
        return target - capacity;
    }

    /** {@link #growthFor} for a segment of this message. */
    public long growthFor(int offset, int segment) {
        return growthFor(length, capacity, receivedBytes, invited, offset, segment);
    }

    /**
     * Takes one DATA segment.
     *
     * @param header       flyweight over the packet's header (validated: offset + segment &lt;= length); may
     *                     be a copy of the header
     * @param packet       the packet; not retained (its bytes are copied)
     * @param payloadIndex index in {@code packet} of the segment's first byte
     * @param growth       what {@link #growthFor} returned for this segment (not negative), already checked
     *                     against the buffer limits by the caller, who reserves it when this succeeds
     * @return new bytes (0 for a duplicate), -1 when the message is too fragmented to track, or
     *         {@link #ALLOCATION_FAILED}
     */
    public int accept(DataHeader header, ByteBuf packet, int payloadIndex, long growth) {
        int offset = header.offset();
        int segment = header.segmentLength();
        if (length == 0) {
            throw new IllegalStateException("use acceptEmpty for an empty message");
        }
        if (growth > 0 && !grow(packet.alloc(), (int) (capacity + growth))) {
            return ALLOCATION_FAILED;
        }
        int fresh = ranges.add(offset, offset + segment);
        if (fresh <= 0) {
            return fresh;
        }
        copyIn(offset, packet, payloadIndex, segment);
        receivedBytes += fresh;
        granted = Math.max(granted, Math.min(length, Math.max(header.incoming(), offset + segment)));
        return fresh;
    }

    /** Copies {@code [from, from + n)} of {@code packet} to the message's offset {@code at} (within capacity). */
    private void copyIn(int at, ByteBuf packet, int from, int n) {
        while (n > 0) {
            int within = at & PIECE_MASK;
            int chunk = Math.min(n, PIECE_BYTES - within);
            piece(at >>> PIECE_SHIFT).setBytes(within, packet, from, chunk);
            at += chunk;
            from += chunk;
            n -= chunk;
        }
    }

    /**
     * Grows the buffer to {@code newCapacity} bytes from {@code alloc}: a last piece shorter than
     * {@link #PIECE_BYTES} is replaced by a longer one (its bytes copied: received bytes lie anywhere below the
     * capacity), then pieces are appended. All or nothing.
     *
     * @return false when an allocation failed (the JVM's direct-memory limit); the buffer is as it was
     */
    private boolean grow(ByteBufAllocator alloc, int newCapacity) {
        int last = pieceCount - 1;
        ByteBuf regrown = null;
        if (last >= 0 && piece(last).capacity() < PIECE_BYTES) {
            regrown = allocate(alloc, Math.min(PIECE_BYTES, newCapacity - (last << PIECE_SHIFT)));
            if (regrown == null) {
                return false;
            }
        }
        int needed = (int) (((long) newCapacity + PIECE_MASK) >>> PIECE_SHIFT);
        if (needed > 1 && (laterPieces == null || laterPieces.length < needed - 1)) {
            int room = laterPieces == null ? 4 : laterPieces.length * 2;
            int max = (int) (((long) length + PIECE_MASK) >>> PIECE_SHIFT) - 1;
            ByteBuf[] grown = new ByteBuf[Math.min(max, Math.max(needed - 1, room))];
            if (laterPieces != null) {
                System.arraycopy(laterPieces, 0, grown, 0, laterPieces.length);
            }
            laterPieces = grown;
        }
        for (int k = pieceCount; k < needed; k++) {
            ByteBuf piece = allocate(alloc, Math.min(PIECE_BYTES, newCapacity - (k << PIECE_SHIFT)));
            if (piece == null) {
                for (int j = pieceCount; j < k; j++) {
                    piece(j).release();
                    piece(j, null);
                }
                if (regrown != null) {
                    regrown.release();
                }
                return false;
            }
            piece(k, piece);
        }
        if (regrown != null) {
            ByteBuf old = piece(last);
            regrown.setBytes(0, old, 0, old.capacity());
            old.release();
            piece(last, regrown);
        }
        pieceCount = needed;
        capacity = newCapacity;
        return true;
    }

    private ByteBuf piece(int k) {
        return k == 0 ? firstPiece : laterPieces[k - 1];
    }

    private void piece(int k, ByteBuf piece) {
        if (k == 0) {
            firstPiece = piece;
        } else {
            laterPieces[k - 1] = piece;
        }
    }

    /**
     * One piece; null when the JVM's direct memory is exhausted. The maximum capacity is the message's length,
     * which tells an allocator that the buffer is a message's (the simulator's rack gives those no bytes).
     */
    private ByteBuf allocate(ByteBufAllocator alloc, int size) {
        try {
            return alloc.buffer(size, Math.max(size, length));
        } catch (OutOfMemoryError noMemory) {
            return null;
        }
    }

    /** Takes the one packet of an empty message; returns false for a duplicate. */
    public boolean acceptEmpty() {
        if (emptySeen) {
            return false;
        }
        emptySeen = true;
        return true;
    }

    /** Whether every byte has arrived (an empty message is complete once its one packet arrived). */
    public boolean complete() {
        return length == 0 ? emptySeen : receivedBytes == length;
    }

    /**
     * Hands the reassembled payload to the caller (who must release it); the message holds nothing after. A
     * payload of more than one piece is a {@code CompositeByteBuf} of the pieces, made by {@code fallback}.
     */
    public ByteBuf takePayload(ByteBufAllocator fallback) {
        if (pieceCount == 0) {
            return fallback.buffer(0, 0);
        }
        ByteBuf payload;
        if (pieceCount == 1) {
            payload = firstPiece.writerIndex(capacity); // bytes were set by offset; the capacity is now the length
        } else {
            CompositeByteBuf composite = fallback.compositeBuffer(pieceCount);
            for (int k = 0; k < pieceCount; k++) {
                ByteBuf piece = piece(k);
                composite.addComponent(true, piece.writerIndex(piece.capacity()));
            }
            payload = composite;
        }
        for (int k = 0; k < pieceCount; k++) {
            piece(k, null);
        }
        pieceCount = 0;
        capacity = 0;
        return payload;
    }

    /** Releases the partial payload, if any. Idempotent. */
    public void release() {
        for (int k = 0; k < pieceCount; k++) {
            piece(k).release();
            piece(k, null);
        }
        pieceCount = 0;
        capacity = 0;
    }

    public MessageOwner owner() {
        return owner;
    }

    public int length() {
        return length;
    }

    public boolean error() {
        return error;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    public int receivedBytes() {
        return receivedBytes;
    }

    @Override
    public int remainingBytes() {
        return length - receivedBytes;
    }

    public int granted() {
        return granted;
    }

    /** Raises the granted offset, the sender to send the new bytes at {@code level} (grant scheduler only). */
    public void granted(int offset, int level) {
        // Bytes already owed were sent at the levels of earlier grants: the lowest of them stays the one to wait
        // for. With nothing owed, the new grant's level is the only one.
        owedLevel = granted <= receivedBytes ? level : Math.min(owedLevel, level);
        grantedBeforeLastGrant = granted;
        granted = offset;
        invited = offset;
    }

    /** {@link #granted()} before our latest GRANT raised it: packets starting at or past it left after that GRANT. */
    public int grantedBeforeLastGrant() {
        return grantedBeforeLastGrant;
    }

    /** Bytes charged to the buffer limits for this message (0 once released). */
    public long reservedBytes() {
        return reservedBytes;
    }

    public void reservedBytes(long v) {
        reservedBytes = v;
    }

    /**
     * Visits up to {@code max} missing ranges below the granted offset, in order.
     *
     * @return the number of ranges visited
     */
    public int forEachGap(int max, GapVisitor visitor) {
        return ranges.forEachGap(granted, max, visitor);
    }

    /** Receives one missing range {@code [start, end)}. */
    public interface GapVisitor {
        void gap(int start, int end);
    }

    /**
     * Whether the sender fell silent: it owes bytes and sent none for a RESEND interval. Grant scheduler only:
     * while set, the message's missing bytes are not counted as on their way.
     */
    public boolean senderSilent() {
        return senderSilent;
    }

    /** Sets {@link #senderSilent()} (grant scheduler only). */
    public void senderSilent(boolean silent) {
        senderSilent = silent;
    }

    /**
     * The lowest priority level at which bytes still owed (granted, not received) may have been sent: the level of
     * the first packet (unscheduled bytes), then of every GRANT issued while bytes were owed. Missing bytes can
     * only be waiting at the switch port while that level was never drained (see {@code DownlinkDrain}).
     */
    public int owedLevel() {
        return owedLevel;
    }

    /** Whether the grant scheduler has it among the messages waiting for grants (grant scheduler only). */
    public boolean awaitingGrants() {
        return awaitingGrants;
    }

    /** Sets {@link #awaitingGrants()} (grant scheduler only). */
    public void awaitingGrants(boolean awaiting) {
        awaitingGrants = awaiting;
    }

    /** Whether it holds one of the grant scheduler's SRPT slots (grant scheduler only). */
    public boolean holdsGrantSlot() {
        return holdsGrantSlot;
    }

    /** Sets {@link #holdsGrantSlot()} (grant scheduler only). */
    public void holdsGrantSlot(boolean holds) {
        holdsGrantSlot = holds;
    }

    /** Bytes granted (unscheduled included) that have not arrived. */
    public int outstandingBytes() {
        return Math.max(0, granted - receivedBytes);
    }

    /** Whether the sender has scheduled (granted by us) bytes it has not delivered yet. */
    public boolean holdsScheduledGrant() {
        return granted > initialGranted && receivedBytes < granted;
    }
}
