package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.outgoing.Transmitter;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import io.netty.buffer.ByteBuf;

/**
 * The sending side both halves share: creates outgoing messages (requests, responses) with the unscheduled
 * priority their peer's cutoffs give, hands them to the {@link Transmitter}, asks it for retransmissions, and
 * retires them. Owns the count of bytes held for (re)transmission. Engine thread only.
 */
public final class Outbound {
    private final HomaConfig config;
    private final Transmitter transmitter;
    private final EngineClock clock;
    private final Metrics metrics;
    private long outgoingBytes;

    public Outbound(HomaConfig config, Transmitter transmitter, EngineClock clock, Metrics metrics) {
        this.config = config;
        this.transmitter = transmitter;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Bytes of requests and responses held for (re)transmission. */
    public long outgoingBytes() {
        return outgoingBytes;
    }

    /**
     * A new outgoing message for {@code owner}; takes ownership of {@code payload}. Sending starts at once.
     *
     * <p>Also takes a reference of the engine's own on {@code payload} (released with the handed-over one by
     * {@link #retire}): an application that releases a buffer after handing it over would otherwise free memory
     * the engine still reads, and a pooled allocator recycles the freed buffer for another allocation, so the
     * engine would send another message's bytes and later release that buffer too (seen over UDP: one handler
     * doing {@code ctx.reply(buf); buf.release()} broke the server for every client).
     */
    OutgoingMessage send(MessageOwner owner, Peer peer, ByteBuf payload, int flags) {
        payload.retain();
        UnscheduledCutoffs cutoffs = peer.cutoffs();
        int length = payload.readableBytes();
        outgoingBytes += length;
        OutgoingMessage m = new OutgoingMessage(owner, payload, flags, clock.nextSequence(),
                config.unscheduledBytes(), cutoffs.levelFor(length, config.priorityLevels()));
        transmitter.add(m);
        return m;
    }

    /** The peer asks for bytes again; true when the range is queued already (answer BUSY). */
    boolean resend(OutgoingMessage m, int offset, int length, int priority) {
        return transmitter.resend(m, offset, length, priority, clock.now());
    }

    /** Sends {@code m} again from byte 0 (a restarted call). */
    void rewind(OutgoingMessage m) {
        transmitter.rewind(m);
    }

    /** Most payload bytes in one DATA packet. */
    int maxPayload() {
        return transmitter.maxPayload();
    }

    /** Stops sending {@code m} and frees its payload. */
    void retire(OutgoingMessage m) {
        transmitter.remove(m);
        if (m.release()) {
            metrics.bufferReleasedByOwner();
        }
        outgoingBytes -= m.length();
    }
}
