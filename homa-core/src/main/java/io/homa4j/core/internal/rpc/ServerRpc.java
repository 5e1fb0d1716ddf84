package io.homa4j.core.internal.rpc;

import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.message.MessageOwner;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.timer.RpcSilence;

import java.net.InetSocketAddress;

/**
 * The server side of one RPC, from its first request packet until the client acknowledges the response (or the
 * RPC expires). The handle given to the application is engine-local and never reused. Engine thread only.
 */
public final class ServerRpc extends AgeList.Member<ServerRpc> implements MessageOwner {
    /** Lifecycle; the handler runs exactly once, on the RECEIVING to HANDLING transition. */
    public enum State {
        /** Request bytes arriving. */
        RECEIVING,
        /** Request delivered to the application; no reply yet. */
        HANDLING,
        /** Reply given; response bytes still to be transmitted. */
        RESPONDING,
        /** Every response byte transmitted at least once; waiting for the client's ACK. */
        AWAITING_ACK
    }

    private final long handle;
    /** The client's address and its id for the RPC: the key (ids are only unique per client). */
    private final InetSocketAddress clientAddress;
    private final long clientId;
    private final Peer client;
    private State state = State.RECEIVING;
    private IncomingMessage request;
    private OutgoingMessage response;
    private final RpcSilence silence = new RpcSilence();
    /** Timer ticks spent in HANDLING (bounded by the handler timeout). */
    private int handlingTicks;
    /** The client sent more than the unscheduled bytes: it follows our grants, so its address is its own. */
    private boolean addressProven;

    ServerRpc(long handle, InetSocketAddress clientAddress, long clientId, Peer client) {
        this.handle = handle;
        this.clientAddress = clientAddress;
        this.clientId = clientId;
        this.client = client;
    }

    public long handle() {
        return handle;
    }

    /** The address the request came from: with {@link #clientId()}, the RPC's key. */
    public InetSocketAddress clientAddress() {
        return clientAddress;
    }

    /** The id the client gave the RPC. */
    public long clientId() {
        return clientId;
    }

    public Peer client() {
        return client;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return client.address();
    }

    @Override
    public io.homa4j.core.internal.timer.RttEstimator peerRtt() {
        return client.rtt();
    }

    @Override
    public long wireId() {
        return clientId ^ 1;
    }

    @Override
    public int cutoffsVersion() {
        return client.cutoffs().version();
    }

    @Override
    public long takePiggybackAck() {
        return 0;
    }

    @Override
    public void onAllSent(long nowNanos) {
        if (state == State.RESPONDING) {
            state = State.AWAITING_ACK;
            silence.heard();
            silence.resetProbes();
        }
    }

    public State state() {
        return state;
    }

    /** The request is complete (or refused): from now on the RPC waits for the handler's reply. */
    void handling() {
        if (state != State.RECEIVING) {
            throw new IllegalStateException(this + ": handled twice");
        }
        state = State.HANDLING;
        silence.heard();
        silence.resetProbes();
    }

    /** The reply was given: {@code m} carries it. */
    void responding(OutgoingMessage m) {
        if (state != State.HANDLING) {
            throw new IllegalStateException(this + ": a reply outside HANDLING");
        }
        response = m;
        state = State.RESPONDING;
        silence.heard();
        silence.resetProbes();
    }

    /**
     * The response could not be read before any byte of it left: the RPC is back to HANDLING without it, so a
     * replacement (an error response) can go instead.
     */
    void withdrawUnsentResponse() {
        if (state != State.RESPONDING) {
            throw new IllegalStateException(this + ": withdrawing a response in " + state);
        }
        response = null;
        state = State.HANDLING;
    }

    /** Records that the client sent more than the unscheduled bytes of its request (see SilenceRules). */
    void addressProven() {
        addressProven = true;
    }

    /** Whether the client proved its address: its probes are not capped. */
    boolean isAddressProven() {
        return addressProven;
    }

    /** One more tick in HANDLING; returns the ticks spent there so far. */
    int handlingTick() {
        return ++handlingTicks;
    }

    /** The silence tracking of this RPC; changed by {@code ServerCalls} only, through its methods. */
    RpcSilence silence() {
        return silence;
    }

    public IncomingMessage request() {
        return request;
    }

    void request(IncomingMessage m) {
        request = m;
    }

    public OutgoingMessage response() {
        return response;
    }

    void response(OutgoingMessage m) {
        response = m;
    }

    @Override
    public String toString() {
        return "ServerRpc{#" + handle + " " + clientAddress + " id " + clientId + " " + state + '}';
    }
}
