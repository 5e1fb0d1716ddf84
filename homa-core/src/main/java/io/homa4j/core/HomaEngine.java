package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * One Homa endpoint's protocol state machine: client and server RPCs, grants, pacing, retransmission and acks.
 *
 * <p>The engine does no I/O and reads no clock: every method takes {@code nowNanos}, a monotonic time from the
 * caller (the event loop's clock, or the simulator's virtual clock). Packets leave through the {@link PacketSink};
 * results reach the application through the {@link RpcListener}.
 *
 * <p>Threading: not thread-safe. All methods, and all sink and listener upcalls, run on one thread.
 *
 * <p>Ownership: every {@code ByteBuf} passed in is owned by the engine from the call on (released even when the
 * call throws); every {@code ByteBuf} passed out (sink, listener) is owned by the receiver.
 */
public final class HomaEngine {

    /**
     * @param config   protocol parameters
     * @param sink     where packets go
     * @param listener where requests, responses and failures go
     * @param nowNanos current time
     */
    public HomaEngine(HomaConfig config, PacketSink sink, RpcListener listener, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /**
     * Starts a client RPC.
     *
     * @param server        the server's address
     * @param request       the request payload (may be empty); owned by the engine from now on
     * @param deadlineNanos absolute time (same clock as nowNanos) after which the call fails with
     *                      DEADLINE_EXCEEDED, or {@code Long.MAX_VALUE} for none
     * @return the RPC id (even), used in {@link RpcListener#onResponse} / {@link RpcListener#onCallFailed}
     * @throws RpcRejectedException when the call cannot start (too large, too many outstanding, closed)
     */
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /**
     * Sends the response of a server RPC delivered by {@link RpcListener#onRequest}.
     *
     * @return false (and the response is released) when the handle is no longer live
     */
    public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /** Fails a server RPC: the client gets HANDLER_ERROR with {@code message}. Same liveness rule as reply. */
    public boolean replyError(long serverHandle, String message, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /** Abandons a client RPC and frees its state; the listener is not called for it. Unknown ids are ignored. */
    public void abort(long rpcId, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /**
     * Feeds one received UDP payload. Malformed, spoofed or unexpected packets are dropped and counted; this
     * method never throws because of packet contents. The engine releases {@code packet}.
     */
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /** Runs timers and the pacer: sends what is due, fires RESEND, NEED_ACK and timeouts. */
    public void poll(long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }

    /**
     * The earliest time at which {@link #poll} has work, or {@code Long.MAX_VALUE} when none is pending.
     * Calling poll earlier or more often is harmless.
     */
    public long nextWakeNanos() {
        throw new UnsupportedOperationException("engine under construction");
    }

    /**
     * Fails every outstanding client RPC with CANCELLED (through the listener), drops every server RPC and
     * releases every buffer. Later calls are rejected; later packets are dropped.
     */
    public void close(long nowNanos) {
        throw new UnsupportedOperationException("engine under construction");
    }
}
