package io.homa4j.core.rpc;

import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.peer.Peer;

import java.net.InetSocketAddress;

/**
 * The client side of one RPC: the request being sent, the response being received, the deadline and the
 * silence counter that drives RESEND and abort. Engine thread only.
 */
public final class ClientRpc implements Rpc {
    private final long id;
    private final Peer server;
    private final long deadlineNanos;
    private OutgoingMessage request;
    private IncomingMessage response;
    private long attemptStartNanos;
    private long firstSentNanos = Long.MAX_VALUE;
    private boolean requestFullySent;
    private int restarts;
    /** Timer ticks since the last packet from the server for this RPC (see the timer package). */
    public int silentTicks;
    /** Timer ticks our own grant scheduler has held this RPC's incoming message back (drives BUSY keepalives). */
    public int heldTicks;
    /** RESENDs sent since the server last sent anything for this RPC. */
    public int unansweredResends;
    /** {@link #silentTicks} when the last RESEND went out (0: none since the server was last heard). */
    public int silenceAtLastResend;
    /** BUSY answers in a row since the server last moved the call on (data or grant); stretches RESENDs. */
    public int busyStreak;
    /** Waiting in the engine's RESEND queue for its peer's per-tick budget. */
    public boolean resendQueued;

    public ClientRpc(long id, Peer server, long deadlineNanos, long nowNanos) {
        this.id = id;
        this.server = server;
        this.deadlineNanos = deadlineNanos;
        this.attemptStartNanos = nowNanos;
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

    public void request(OutgoingMessage m) {
        request = m;
    }

    public IncomingMessage response() {
        return response;
    }

    public void response(IncomingMessage m) {
        response = m;
    }

    /** When the current attempt (first send, or the last restart) began. */
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

    public long attemptStartNanos() {
        return attemptStartNanos;
    }

    /** Whether every request byte has been transmitted at least once in the current attempt. */
    public boolean requestFullySent() {
        return requestFullySent;
    }

    public int restarts() {
        return restarts;
    }

    /** Begins a new attempt: the request is sent again from byte 0. */
    public void restart(long nowNanos) {
        restarts++;
        attemptStartNanos = nowNanos;
        firstSentNanos = Long.MAX_VALUE;
        requestFullySent = false;
        silentTicks = 0;
    }

    @Override
    public String toString() {
        return "ClientRpc{" + id + " -> " + server.address() + '}';
    }
}
