package io.homa4j.core.internal.rpc;

import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.order.IndexedHeap;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.timer.RpcSilence;

import java.net.InetSocketAddress;

/**
 * The client side of one RPC: the request being sent, the response being received, the deadline and the
 * silence counter that drives RESEND and abort. Engine thread only.
 */
public final class ClientRpc extends AgeList.Member<ClientRpc> implements MessageOwner {
    private final long id;
    private final Peer server;
    private final long deadlineNanos;
    private OutgoingMessage request;
    private IncomingMessage response;
    private long firstSentNanos = Long.MAX_VALUE;
    private boolean requestFullySent;
    private int restarts;
    private final RpcSilence silence = new RpcSilence();
    /** Waiting in the engine's RESEND queue for its peer's per-tick budget. */
    private boolean resendQueued;
    /** Where this RPC is in the engine's deadline queue ({@link IndexedHeap#ABSENT}: not queued). */
    private int deadlinePosition = IndexedHeap.ABSENT;

    /** This RPC's place in the engine's deadline queue. */
    static final IndexedHeap.Position<ClientRpc> DEADLINE_POSITION =
            IndexedHeap.Position.of(rpc -> rpc.deadlinePosition, (rpc, index) -> rpc.deadlinePosition = index);

    ClientRpc(long id, Peer server, long deadlineNanos) {
        this.id = id;
        this.server = server;
        this.deadlineNanos = deadlineNanos;
    }

    public long id() {
        return id;
    }

    public Peer server() {
        return server;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return server.address();
    }

    @Override
    public io.homa4j.core.internal.timer.RttEstimator peerRtt() {
        return server.rtt();
    }

    @Override
    public long wireId() {
        return id;
    }

    @Override
    public int cutoffsVersion() {
        return server.cutoffs().version();
    }

    @Override
    public long takePiggybackAck() {
        return server.pollPendingAck();
    }

    @Override
    public void onAllSent(long nowNanos) {
        requestFullySent = true;
    }

    public long deadlineNanos() {
        return deadlineNanos;
    }

    public OutgoingMessage request() {
        return request;
    }

    void request(OutgoingMessage m) {
        request = m;
    }

    public IncomingMessage response() {
        return response;
    }

    void response(IncomingMessage m) {
        response = m;
    }

    /** Notes when the current attempt's (first send, or the last restart) first request packet left. */
    @Override
    public void onFirstSent(long nowNanos) {
        if (firstSentNanos == Long.MAX_VALUE) {
            firstSentNanos = nowNanos;
        }
    }

    /** When this attempt's first request packet left, or {@code Long.MAX_VALUE} if none has yet. */
    public long firstSentNanos() {
        return firstSentNanos;
    }

    /** Whether every request byte has been transmitted at least once in the current attempt. */
    public boolean requestFullySent() {
        return requestFullySent;
    }

    public int restarts() {
        return restarts;
    }

    /** Begins a new attempt: the request is sent again from byte 0. */
    void restart() {
        restarts++;
        firstSentNanos = Long.MAX_VALUE;
        requestFullySent = false;
        silence.heard();
    }

    /** The silence tracking of this call; changed by {@code ClientCalls} only, through its methods. */
    RpcSilence silence() {
        return silence;
    }

    boolean resendQueued() {
        return resendQueued;
    }

    void resendQueued(boolean queued) {
        resendQueued = queued;
    }

    @Override
    public String toString() {
        return "ClientRpc{" + id + " -> " + server.address() + '}';
    }
}
