package io.homa4j.core.internal.metrics;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.homa4j.core.wire.PacketType;

/**
 * The engine's live counters and high-water marks: their one owner. Each is changed only by a method here, called
 * by the part of the engine that sees the event (drops only through {@code rpc.PacketVerdict}, dead-handle replies
 * only by {@code rpc.ServerCalls}); applications see the immutable {@link MetricsSnapshot} that {@link #snapshot}
 * copies. Engine thread only: counters are plain fields.
 */
public final class Metrics {
    private final long[] packetsIn = new long[PacketType.values().length];
    private final long[] packetsOut = new long[PacketType.values().length];
    private final long[] drops = new long[DropReason.values().length];
    private final long[] clientFailures = new long[ErrorCode.values().length];
    private long bytesIn;
    private long bytesOut;
    private long dataBytesIn;
    private long dataBytesOut;
    private long retransmittedPackets;
    private long grantedBytes;
    private long clientCalls;
    private long clientCompleted;
    private long clientAborted;
    private long clientRestarts;
    private long requestsDelivered;
    private long serverReplies;
    private long serverFreedByAck;
    private long serverExpired;
    private long serverFreedByPeer;
    private long deadHandleReplies;
    private long listenerErrors;
    private long cutoffsUpdates;
    private long sinkErrors;
    private long allocationFailures;
    private long unreadableMessages;
    private long handlerTimeouts;
    private long buffersReleasedByOwner;
    private int grantedMessagesHighWater;
    private long grantedBytesOutstandingHighWater;
    private long bufferedBytesHighWater;

    public void packetIn(PacketType type, int bytes) {
        packetsIn[type.ordinal()]++;
        bytesIn += bytes;
    }

    /** A packet that was dropped before its type was known still counts as received bytes. */
    public void rawBytesIn(int bytes) {
        bytesIn += bytes;
    }

    public void packetOut(PacketType type, int bytes) {
        packetsOut[type.ordinal()]++;
        bytesOut += bytes;
    }

    public void drop(DropReason reason) {
        drops[reason.ordinal()]++;
    }

    public void dataBytesIn(int bytes) {
        dataBytesIn += bytes;
    }

    public void dataBytesOut(int bytes) {
        dataBytesOut += bytes;
    }

    public void retransmitted() {
        retransmittedPackets++;
    }

    public void granted(long bytes) {
        grantedBytes += bytes;
    }

    public void clientCall() {
        clientCalls++;
    }

    public void clientCompleted() {
        clientCompleted++;
    }

    public void clientFailed(ErrorCode code) {
        clientFailures[code.ordinal()]++;
    }

    public void clientAborted() {
        clientAborted++;
    }

    public void clientRestarted() {
        clientRestarts++;
    }

    public void requestDelivered() {
        requestsDelivered++;
    }

    public void serverReplied() {
        serverReplies++;
    }

    public void serverFreedByAck() {
        serverFreedByAck++;
    }

    public void serverExpired() {
        serverExpired++;
    }

    public void serverFreedByPeer() {
        serverFreedByPeer++;
    }

    public void deadHandleReply() {
        deadHandleReplies++;
    }

    public void listenerError() {
        listenerErrors++;
    }

    public void allocationFailure() {
        allocationFailures++;
    }

    public long allocationFailureCount() {
        return allocationFailures;
    }

    public void sinkError() {
        sinkErrors++;
    }

    /** A request or response whose buffer could not be read (released or changed under the engine). */
    public void unreadableMessage() {
        unreadableMessages++;
    }

    /** A request or response released by the application after it handed it over (absorbed by the engine). */
    public void bufferReleasedByOwner() {
        buffersReleasedByOwner++;
    }

    /** A server RPC whose handler did not reply within the handler timeout. */
    public void handlerTimedOut() {
        handlerTimeouts++;
    }

    /** Packets dropped so far for {@code reason}. */
    public long dropCount(DropReason reason) {
        return drops[reason.ordinal()];
    }

    public long sinkErrorCount() {
        return sinkErrors;
    }

    public void cutoffsUpdated() {
        cutoffsUpdates++;
    }

    public void grantedMessages(int count) {
        grantedMessagesHighWater = Math.max(grantedMessagesHighWater, count);
    }

    public void grantedBytesOutstanding(long bytes) {
        grantedBytesOutstandingHighWater = Math.max(grantedBytesOutstandingHighWater, bytes);
    }

    public void bufferedBytes(long bytes) {
        bufferedBytesHighWater = Math.max(bufferedBytesHighWater, bytes);
    }

    /** A copy of every counter plus the given current gauges. */
    public MetricsSnapshot snapshot(int clientRpcs, int serverRpcs, long bufferedBytes, long outgoingBytes) {
        return new MetricsSnapshot(packetsIn, packetsOut, drops, clientFailures, bytesIn, bytesOut, dataBytesIn, dataBytesOut, retransmittedPackets, grantedBytes, clientCalls, clientCompleted, clientAborted, clientRestarts, requestsDelivered, serverReplies, serverFreedByAck, serverExpired, serverFreedByPeer, deadHandleReplies, listenerErrors, cutoffsUpdates, sinkErrors, allocationFailures, unreadableMessages, handlerTimeouts, buffersReleasedByOwner, grantedMessagesHighWater, grantedBytesOutstandingHighWater, bufferedBytesHighWater, clientRpcs, serverRpcs, bufferedBytes, outgoingBytes);
    }
}
