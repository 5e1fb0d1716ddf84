package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcListener;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/**
 * The protocol engine as the transport drives it: the methods of {@link io.homa4j.core.HomaEngine}, behind an
 * interface so the transport and the API layer can be tested against a scripted engine. Internal; not API.
 *
 * <p>Threading and ownership rules are those of {@code HomaEngine}: one thread, every buffer passed in is owned
 * by the engine.
 */
public interface ProtocolEngine {

    long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos);

    boolean reply(long serverHandle, ByteBuf response, long nowNanos);

    boolean replyError(long serverHandle, String message, long nowNanos);

    void abort(long rpcId, long nowNanos);

    void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos);

    /**
     * A burst of received packets, as {@code HomaEngine.onPackets}: releases {@code packets[0..count)} and clears
     * those slots. Engines without a batched path take them one by one.
     */
    default void onPackets(InetSocketAddress[] senders, ByteBuf[] packets, int count, long nowNanos) {
        for (int i = 0; i < count; i++) {
            ByteBuf packet = packets[i];
            packets[i] = null;
            onPacket(senders[i], packet, nowNanos);
        }
    }

    void poll(long nowNanos);

    long nextWakeNanos();

    void close(long nowNanos);

    /** The engine's counters and gauges now; null for engines that keep none (test doubles). */
    MetricsSnapshot metrics();

    /** Creates the engine of one endpoint. */
    @FunctionalInterface
    interface Factory {
        ProtocolEngine create(HomaConfig config, PacketSink sink, RpcListener listener, long nowNanos);
    }
}
