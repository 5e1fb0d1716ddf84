package io.homa4j.core.rpc;

import java.net.InetSocketAddress;

/**
 * What the message machinery (outgoing, incoming, grant) needs to know about the RPC a message belongs to.
 * Implemented by {@link ClientRpc} and {@link ServerRpc}. Engine thread only.
 */
public interface Rpc {
    /** The other end. */
    InetSocketAddress peerAddress();

    /** The id this side puts in the packets it sends: the client id for a client, client id ^ 1 for a server. */
    long wireId();

    /** An ack to piggy-back on the next DATA of this RPC, or 0 (only clients owe acks). */
    long takePiggybackAck();

    /** Version of the peer's cutoffs this side uses now (echoed in DATA so the peer knows we are up to date). */
    int cutoffsVersion();

    /** The outgoing message of this RPC has had every byte transmitted at least once. */
    void onAllSent(long nowNanos);
}
