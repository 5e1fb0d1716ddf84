package io.homa4j.core.internal.message;

import io.homa4j.core.internal.timer.RttEstimator;

import java.net.InetSocketAddress;

/**
 * What the message machinery ({@code outgoing}, {@code incoming}, {@code grant}) needs to know about the RPC a
 * message belongs to, and the two events it reports back. It lives below those packages (not in {@code rpc},
 * which implements it with {@code ClientRpc} and {@code ServerRpc}) so that every package arrow points down, to
 * the concerns a package uses. Engine thread only.
 */
public interface MessageOwner {
    /** The other end. */
    InetSocketAddress peerAddress();

    /** The round trip measured with the other end (owned by its peer entry). */
    RttEstimator peerRtt();

    /** The id this side puts in the packets it sends: the client id for a client, client id ^ 1 for a server. */
    long wireId();

    /** An ack to piggy-back on the next DATA of this RPC, or 0 (only clients owe acks). */
    long takePiggybackAck();

    /** Version of the peer's cutoffs this side uses now (echoed in DATA so the peer knows we are up to date). */
    int cutoffsVersion();

    /** The outgoing message of this RPC has had every byte transmitted at least once. */
    void onAllSent(long nowNanos);

    /** The first packet of this RPC's outgoing message (byte 0) was transmitted, in this attempt. */
    default void onFirstSent(long nowNanos) {
    }
}
