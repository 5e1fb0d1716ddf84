package io.homa4j.core.metrics;

/** Why the engine dropped a received packet (or part of one). Every drop is counted under exactly one reason. */
public enum DropReason {
    /** Shorter than its type's header, or shorter than its declared contents. */
    TRUNCATED,
    /** Does not start with the Homa magic: stray UDP traffic. */
    BAD_MAGIC,
    /** A wire version this engine does not speak. */
    BAD_VERSION,
    /** Unknown packet type code. */
    UNKNOWN_TYPE,
    /** Fields out of range or inconsistent with each other (negative lengths, offset past the end, bad flags). */
    MALFORMED,
    /** A request or response longer than maxMessageBytes. */
    MESSAGE_TOO_LARGE,
    /** Refers to an RPC this engine has no state for. */
    UNKNOWN_RPC,
    /** Refers to an RPC of another peer (the RPC exists, but the source address does not own it). */
    WRONG_PEER,
    /** A DATA packet whose message length or flags differ from earlier packets of the same message. */
    INCONSISTENT,
    /** Data this engine already has (retransmission or network duplicate). */
    DUPLICATE,
    /** Data for a message that is already complete, or a control packet that does not apply in the RPC's state. */
    STALE,
    /** A new request while maxServerRpcs server RPCs exist. */
    SERVER_RPC_LIMIT,
    /** A new message would exceed maxBufferedBytesPerPeer. */
    PEER_BUFFER_LIMIT,
    /** A new message would exceed maxBufferedBytesTotal. */
    TOTAL_BUFFER_LIMIT,
    /** The message has too many holes to track. */
    TOO_FRAGMENTED,
    /**
     * Memory for the data could not be allocated (the JVM's direct-memory limit was reached): the packet is lost,
     * its message and RPC stay as they were, and the sender's retransmission brings the bytes again.
     */
    ALLOCATION_FAILED,
    /**
     * DATA too far ahead of what the message has received: keeping it would reserve more than
     * {@code IncomingMessage.MAX_RESERVED_PER_RECEIVED} times the bytes the sender has actually delivered.
     */
    AHEAD_OF_DATA,
    /** The engine is closed. */
    CLOSED,
    /** A bug: processing threw. Counted so tests can assert it never happens. */
    INTERNAL_ERROR
}
