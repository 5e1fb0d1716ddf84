package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.incoming.IncomingMessage;
import io.homa4j.core.internal.timer.SilenceRules;

import java.util.ArrayDeque;

/**
 * The client's RESENDs: calls due for one wait here for their server's per-tick budget, oldest first, so none
 * starves. Bounding RESENDs per server keeps thousands of silent calls from flooding a server that is merely
 * slow. Owned by {@link ClientCalls}; engine thread only.
 */
final class ClientResends {
    /** Calls that may send RESENDs to one server in one timer tick. */
    static final int MAX_RESENDS_PER_PEER_PER_TICK = 8;

    private final HomaConfig config;
    private final SilenceRules silenceRules;
    private final ControlSender control;
    private final Receiver receiver;
    private final Outbound outbound;
    private final ClientRpcTable rpcs;
    private final ArrayDeque<ClientRpc> queue = new ArrayDeque<>();
    /** Timer ticks run so far; keys the per-server RESEND budgets. */
    private long tickSerial;

    ClientResends(RpcHalf.Parts parts, ClientRpcTable rpcs) {
        this.config = parts.config();
        this.silenceRules = parts.silenceRules();
        this.control = parts.control();
        this.receiver = parts.receiver();
        this.outbound = parts.outbound();
        this.rpcs = rpcs;
    }

    /** A new timer tick: every server's budget is whole again. */
    void newTick() {
        tickSerial++;
    }

    /** {@code rpc} is due for a RESEND; it goes out in this tick's {@link #sendQueued} if its server's budget allows. */
    void queue(ClientRpc rpc) {
        rpc.resendQueued(true);
        queue.add(rpc);
    }

    /**
     * Sends the queued RESENDs, oldest first, for at most {@link #MAX_RESENDS_PER_PEER_PER_TICK} calls per server
     * per tick; the rest wait, in order, for the next tick.
     */
    void sendQueued() {
        for (int i = queue.size(); i > 0; i--) {
            ClientRpc rpc = queue.poll();
            if (rpcs.get(rpc.id()) != rpc
                    || !rpc.silence().clientResendDue(silenceRules, silenceRules.resendTicksFor(rpc.server().rtt()))) {
                rpc.resendQueued(false); // finished, or heard from since it was queued
                continue;
            }
            if (!rpc.server().takeResendBudget(tickSerial, MAX_RESENDS_PER_PEER_PER_TICK)) {
                queue.add(rpc);
                continue;
            }
            rpc.resendQueued(false);
            rpc.silence().resendSent(silenceRules);
            send(rpc);
        }
    }

    /** Forgets every queued call (engine close). */
    void clear() {
        queue.clear();
    }

    private void send(ClientRpc rpc) {
        IncomingMessage response = rpc.response();
        if (response == null) {
            // Nothing back yet: ask for the response's start; the server answers BUSY, GRANT, data or RPC_UNKNOWN.
            control.resend(rpc.peerAddress(), rpc.wireId(), 0, outbound.maxPayload(), config.priorityLevels() - 1);
        } else {
            receiver.senderSilent(response);
            control.requestGaps(rpc, response);
        }
    }
}
