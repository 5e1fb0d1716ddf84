package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.HomaEngine;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcListener;
import io.homa4j.core.metrics.MetricsSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

import java.net.InetSocketAddress;

/** The real engine behind {@link ProtocolEngine}: plain delegation. */
public final class HomaEngineAdapter implements ProtocolEngine {

    /** Builds a {@link HomaEngine} that allocates its packets from the pooled direct allocator. */
    public static final Factory FACTORY = factory(PooledByteBufAllocator.DEFAULT);

    private final HomaEngine engine;

    private HomaEngineAdapter(HomaConfig config, PacketSink sink, RpcListener listener, ByteBufAllocator allocator,
                              long nowNanos) {
        this.engine = new HomaEngine(config, sink, listener, allocator, nowNanos);
    }

    /**
     * Builds {@link HomaEngine}s that allocate packets and message buffers from {@code allocator} (tests count
     * what the engine holds, or make allocations fail, through their own).
     */
    public static Factory factory(ByteBufAllocator allocator) {
        return (config, sink, listener, nowNanos) -> new HomaEngineAdapter(config, sink, listener, allocator,
                nowNanos);
    }

    /** The wrapped engine. */
    public HomaEngine engine() {
        return engine;
    }

    @Override
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
        return engine.call(server, request, deadlineNanos, nowNanos);
    }

    @Override
    public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
        return engine.reply(serverHandle, response, nowNanos);
    }

    @Override
    public boolean replyError(long serverHandle, String message, long nowNanos) {
        return engine.replyError(serverHandle, message, nowNanos);
    }

    @Override
    public void abort(long rpcId, long nowNanos) {
        engine.abort(rpcId, nowNanos);
    }

    @Override
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        engine.onPacket(from, packet, nowNanos);
    }

    @Override
    public void onPackets(InetSocketAddress[] senders, ByteBuf[] packets, int count, long nowNanos) {
        engine.onPackets(senders, packets, count, nowNanos);
    }

    @Override
    public void poll(long nowNanos) {
        engine.poll(nowNanos);
    }

    @Override
    public long nextWakeNanos() {
        return engine.nextWakeNanos();
    }

    @Override
    public void close(long nowNanos) {
        engine.close(nowNanos);
    }

    @Override
    public MetricsSnapshot metrics() {
        return engine.metrics();
    }
}
