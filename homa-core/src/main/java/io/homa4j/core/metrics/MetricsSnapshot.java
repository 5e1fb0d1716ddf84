package io.homa4j.core.metrics;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.wire.PacketType;

import java.util.StringJoiner;

/**
 * An immutable copy of one engine's counters and gauges, taken by {@code HomaEngine.metrics()}. Thread-safe.
 *
 * <p>Counters only grow over the engine's life; gauges ({@link #clientRpcs}, {@link #serverRpcs},
 * {@link #bufferedBytes}, {@link #outgoingBytes}) are the values at the time of the snapshot; high-water marks
 * are maxima over the engine's life.
 */
public final class MetricsSnapshot {
    private final long[] packetsIn;
    private final long[] packetsOut;
    private final long[] drops;
    private final long[] clientFailures;
    private final long bytesIn;
    private final long bytesOut;
    private final long dataBytesIn;
    private final long dataBytesOut;
    private final long retransmittedPackets;
    private final long grantedBytes;
    private final long clientCalls;
    private final long clientCompleted;
    private final long clientAborted;
    private final long clientRestarts;
    private final long requestsDelivered;
    private final long serverReplies;
    private final long serverFreedByAck;
    private final long serverExpired;
    private final long serverFreedByPeer;
    private final long deadHandleReplies;
    private final long listenerErrors;
    private final long cutoffsUpdates;
    private final long sinkErrors;
    private final long allocationFailures;
    private final long unreadableMessages;
    private final long handlerTimeouts;
    private final long buffersReleasedByOwner;
    private final int grantedMessagesHighWater;
    private final long grantedBytesOutstandingHighWater;
    private final long bufferedBytesHighWater;
    private final int clientRpcs;
    private final int serverRpcs;
    private final long bufferedBytes;
    private final long outgoingBytes;

    /**
     * A snapshot of the given values: the engine takes one from its live counters (a test may build one). Each
     * argument is the value of the accessor of the same name; the arrays are copied and are indexed by
     * {@link PacketType#ordinal()} ({@code packetsIn}, {@code packetsOut}), {@link DropReason#ordinal()}
     * ({@code drops}) and {@link ErrorCode#ordinal()} ({@code clientFailures}).
     */
    public MetricsSnapshot(long[] packetsIn,
                           long[] packetsOut,
                           long[] drops,
                           long[] clientFailures,
                           long bytesIn,
                           long bytesOut,
                           long dataBytesIn,
                           long dataBytesOut,
                           long retransmittedPackets,
                           long grantedBytes,
                           long clientCalls,
                           long clientCompleted,
                           long clientAborted,
                           long clientRestarts,
                           long requestsDelivered,
                           long serverReplies,
                           long serverFreedByAck,
                           long serverExpired,
                           long serverFreedByPeer,
                           long deadHandleReplies,
                           long listenerErrors,
                           long cutoffsUpdates,
                           long sinkErrors,
                           long allocationFailures,
                           long unreadableMessages,
                           long handlerTimeouts,
                           long buffersReleasedByOwner,
                           int grantedMessagesHighWater,
                           long grantedBytesOutstandingHighWater,
                           long bufferedBytesHighWater,
                           int clientRpcs,
                           int serverRpcs,
                           long bufferedBytes,
                           long outgoingBytes) {
        this.packetsIn = packetsIn.clone();
        this.packetsOut = packetsOut.clone();
        this.drops = drops.clone();
        this.clientFailures = clientFailures.clone();
        this.bytesIn = bytesIn;
        this.bytesOut = bytesOut;
        this.dataBytesIn = dataBytesIn;
        this.dataBytesOut = dataBytesOut;
        this.retransmittedPackets = retransmittedPackets;
        this.grantedBytes = grantedBytes;
        this.clientCalls = clientCalls;
        this.clientCompleted = clientCompleted;
        this.clientAborted = clientAborted;
        this.clientRestarts = clientRestarts;
        this.requestsDelivered = requestsDelivered;
        this.serverReplies = serverReplies;
        this.serverFreedByAck = serverFreedByAck;
        this.serverExpired = serverExpired;
        this.serverFreedByPeer = serverFreedByPeer;
        this.deadHandleReplies = deadHandleReplies;
        this.listenerErrors = listenerErrors;
        this.cutoffsUpdates = cutoffsUpdates;
        this.sinkErrors = sinkErrors;
        this.allocationFailures = allocationFailures;
        this.unreadableMessages = unreadableMessages;
        this.handlerTimeouts = handlerTimeouts;
        this.buffersReleasedByOwner = buffersReleasedByOwner;
        this.grantedMessagesHighWater = grantedMessagesHighWater;
        this.grantedBytesOutstandingHighWater = grantedBytesOutstandingHighWater;
        this.bufferedBytesHighWater = bufferedBytesHighWater;
        this.clientRpcs = clientRpcs;
        this.serverRpcs = serverRpcs;
        this.bufferedBytes = bufferedBytes;
        this.outgoingBytes = outgoingBytes;
    }

    /** Valid packets received, by type (dropped-as-malformed packets are not counted here). */
    public long packetsIn(PacketType type) { return packetsIn[type.ordinal()]; }

    /** Packets handed to the sink, by type. */
    public long packetsOut(PacketType type) { return packetsOut[type.ordinal()]; }

    public long totalPacketsIn() { return sum(packetsIn); }

    public long totalPacketsOut() { return sum(packetsOut); }

    /** Received packets (or DATA segments) dropped for {@code reason}. */
    public long drops(DropReason reason) { return drops[reason.ordinal()]; }

    public long totalDrops() { return sum(drops); }

    /** UDP payload bytes received, dropped packets included. */
    public long bytesIn() { return bytesIn; }

    /** UDP payload bytes handed to the sink. */
    public long bytesOut() { return bytesOut; }

    /** Message bytes received for the first time (duplicates excluded). */
    public long dataBytesIn() { return dataBytesIn; }

    /** Message bytes sent, retransmissions included. */
    public long dataBytesOut() { return dataBytesOut; }

    /** DATA packets sent again because a RESEND asked for them. */
    public long retransmittedPackets() { return retransmittedPackets; }

    /** Bytes granted by this engine as a receiver, beyond the unscheduled bytes. */
    public long grantedBytes() { return grantedBytes; }

    public long clientCalls() { return clientCalls; }

    public long clientCompleted() { return clientCompleted; }

    /** Client RPCs that ended with {@code code}. */
    public long clientFailed(ErrorCode code) { return clientFailures[code.ordinal()]; }

    public long totalClientFailed() { return sum(clientFailures); }

    public long clientAborted() { return clientAborted; }

    /** Client RPCs re-sent from scratch after the server lost their state. */
    public long clientRestarts() { return clientRestarts; }

    /** Requests handed to RpcListener.onRequest (once per server RPC). */
    public long requestsDelivered() { return requestsDelivered; }

    /** reply / replyError calls accepted. */
    public long serverReplies() { return serverReplies; }

    public long serverFreedByAck() { return serverFreedByAck; }

    /** Server RPCs abandoned after abortTicks of silence. */
    public long serverExpired() { return serverExpired; }

    /** Server RPCs freed because the client said it no longer knows them (RPC_UNKNOWN). */
    public long serverFreedByPeer() { return serverFreedByPeer; }

    public long deadHandleReplies() { return deadHandleReplies; }

    /** Exceptions thrown by the RpcListener (caught and logged by the engine). */
    public long listenerErrors() { return listenerErrors; }

    /** CUTOFFS packets received that changed a peer's cutoffs. */
    public long cutoffsUpdates() { return cutoffsUpdates; }

    /** Calls to the PacketSink that threw (each counted as a packet lost). */
    public long sinkErrors() { return sinkErrors; }

    /**
     * Packets the engine could not send because allocating them failed (out of direct memory): it tried again a
     * tick later; timers repair what was lost meanwhile.
     */
    public long allocationFailures() { return allocationFailures; }

    /**
     * Requests and responses whose buffer could not be read while being sent (already released when handed over,
     * or shrunk by the application afterwards): each failed its own RPC alone.
     */
    public long unreadableMessages() { return unreadableMessages; }

    /**
     * Requests and responses the application released after handing them over (a misuse: the engine owned them).
     * The engine holds a reference of its own while it sends a message, so such a message still went out whole;
     * this counts the mistakes it absorbed.
     */
    public long buffersReleasedByOwner() { return buffersReleasedByOwner; }

    /** Server RPCs answered DEADLINE_EXCEEDED because the handler did not reply within the handler timeout. */
    public long handlerTimeouts() { return handlerTimeouts; }

    /**
     * Most incoming messages holding an SRPT grant slot at one time (at most maxOvercommit): granted beyond
     * their unscheduled bytes, not yet fully granted, with granted bytes not yet received.
     */
    public int grantedMessagesHighWater() { return grantedMessagesHighWater; }

    /**
     * Most granted-but-not-received bytes (unscheduled included) over all incoming messages, measured each time
     * a grant is issued (grants never take it past maxIncomingBytes; newly arriving unscheduled bytes may).
     */
    public long grantedBytesOutstandingHighWater() { return grantedBytesOutstandingHighWater; }

    public long bufferedBytesHighWater() { return bufferedBytesHighWater; }

    /** Client RPCs alive at snapshot time. */
    public int clientRpcs() { return clientRpcs; }

    /** Server RPCs alive at snapshot time. */
    public int serverRpcs() { return serverRpcs; }

    /** Bytes reserved for incoming messages at snapshot time. */
    public long bufferedBytes() { return bufferedBytes; }

    /** Bytes of outgoing messages held (requests and responses not yet freed) at snapshot time. */
    public long outgoingBytes() { return outgoingBytes; }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(", ", "MetricsSnapshot{", "}");
        for (PacketType t : PacketType.values()) {
            if (packetsIn[t.ordinal()] != 0 || packetsOut[t.ordinal()] != 0) {
                j.add(t + " in/out=" + packetsIn[t.ordinal()] + "/" + packetsOut[t.ordinal()]);
            }
        }
        for (DropReason r : DropReason.values()) {
            if (drops[r.ordinal()] != 0) {
                j.add("drop " + r + "=" + drops[r.ordinal()]);
            }
        }
        for (ErrorCode c : ErrorCode.values()) {
            if (clientFailures[c.ordinal()] != 0) {
                j.add("failed " + c + "=" + clientFailures[c.ordinal()]);
            }
        }
        j.add("calls=" + clientCalls).add("completed=" + clientCompleted).add("aborted=" + clientAborted)
                .add("restarts=" + clientRestarts).add("delivered=" + requestsDelivered)
                .add("retransmitted=" + retransmittedPackets).add("granted=" + grantedBytes)
                .add("grantedMessagesHW=" + grantedMessagesHighWater).add("sinkErrors=" + sinkErrors)
                .add("allocationFailures=" + allocationFailures).add("unreadable=" + unreadableMessages).add("releasedByOwner=" + buffersReleasedByOwner).add("handlerTimeouts=" + handlerTimeouts)
                .add("clientRpcs=" + clientRpcs).add("serverRpcs=" + serverRpcs)
                .add("buffered=" + bufferedBytes).add("outgoing=" + outgoingBytes);
        return j.toString();
    }
}
