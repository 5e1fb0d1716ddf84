package io.homa4j.core.rpc;

import io.homa4j.core.incoming.IncomingMessage;
import io.homa4j.core.outgoing.OutgoingMessage;
import io.homa4j.core.peer.Peer;
import io.homa4j.core.timer.SilenceRules;

import java.net.InetSocketAddress;

/**
 * The server side of one RPC, from its first request packet until the client acknowledges the response (or the
 * RPC expires). The handle given to the application is engine-local and never reused. Engine thread only.
 */
public final class ServerRpc implements Rpc {
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
    private final ServerKey key;
    private final Peer client;
    private State state = State.RECEIVING;
    private IncomingMessage request;
    private OutgoingMessage response;
    /** Timer ticks since the last packet from the client for this RPC (see the timer package). */
    public int silentTicks;
    /** Timer ticks our own grant scheduler has held this RPC's incoming message back (drives BUSY keepalives). */
    public int heldTicks;
    /** Timer ticks spent in HANDLING (bounded by the handler timeout). */
    private int handlingTicks;
    /** The client sent more than the unscheduled bytes: it follows our grants, so its address is its own. */
    private boolean addressProven;
    /** RESENDs / NEED_ACKs sent since the client was last heard (see {@code SilenceRules.probeDue}). */
    private int unansweredProbes;
    /** {@link #silentTicks} when the last probe went or the client was last heard. */
    private int silenceAtLastProbe;

    public ServerRpc(long handle, ServerKey key, Peer client) {
        this.handle = handle;
        this.key = key;
        this.client = client;
    }

    public long handle() {
        return handle;
    }

    public ServerKey key() {
        return key;
    }

    public long clientId() {
        return key.clientId();
    }

    public Peer client() {
        return client;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return client.address();
    }

    @Override
    public long wireId() {
        return key.clientId() ^ 1;
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
            silentTicks = 0;
            resetProbes();
        }
    }

    /**
     * A packet of this RPC came from the client (it is alive), or a new wait for it begins: the probe budget is
     * whole again and the next probe waits a full first interval from now. Call after setting {@link #silentTicks}.
     */
    public void resetProbes() {
        unansweredProbes = 0;
        silenceAtLastProbe = silentTicks;
    }

    /**
     * Whether a probe may go now under {@code rules} (capped unless the client proved its address); if so it is
     * counted as sent.
     */
    public boolean takeProbe(SilenceRules rules, int firstAfterTicks, boolean capped) {
        if (silentTicks < silenceAtLastProbe) {
            resetProbes(); // the silence was ended (and restarted) since: a fresh budget
            silenceAtLastProbe = 0;
        }
        if (!rules.probeDue(silentTicks, silenceAtLastProbe, unansweredProbes, firstAfterTicks, capped)) {
            return false;
        }
        unansweredProbes++;
        silenceAtLastProbe = silentTicks;
        return true;
    }

    /** Records that the client sent more than the unscheduled bytes of its request (see SilenceRules). */
    public void addressProven() {
        addressProven = true;
    }

    /** Whether the client proved its address: its probes are not capped. */
    public boolean isAddressProven() {
        return addressProven;
    }

    /** One more tick in HANDLING; returns the ticks spent there so far. */
    public int handlingTick() {
        return ++handlingTicks;
    }

    public State state() {
        return state;
    }

    public void state(State s) {
        state = s;
    }

    public IncomingMessage request() {
        return request;
    }

    public void request(IncomingMessage m) {
        request = m;
    }

    public OutgoingMessage response() {
        return response;
    }

    public void response(OutgoingMessage m) {
        response = m;
    }

    @Override
    public String toString() {
        return "ServerRpc{#" + handle + " " + key + " " + state + '}';
    }
}
