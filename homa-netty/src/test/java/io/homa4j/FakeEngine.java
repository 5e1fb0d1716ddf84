package io.homa4j;

import io.homa4j.core.Engine;
import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.PacketSink;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.PacketType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * A scripted stand-in for HomaEngine, to test the API layer and the sockets before the real engine exists: every
 * message is one datagram {@code [frame][magic u32][type u8][id u64][payload]}, no loss recovery. The frame is a
 * Homa DATA header with only its common part and segment length set: the transport coalesces a turn's
 * equal-length packets to one peer into one GSO send and the receiver cuts the coalesced read by the length each
 * packet declares ({@code PacketDecoder.framedLength}), as it does for the real engine's packets. Deadlines are honoured
 * through {@link #nextWakeNanos}/{@link #poll}, like the real engine's timers.
 */
final class FakeEngine implements Engine {
    static final int MAGIC = 0x46414B45;
    static final byte REQUEST = 1;
    static final byte RESPONSE = 2;
    static final byte ERROR = 3;
    static final int HEADER = 13;
    private static final int FRAME = DataHeader.LENGTH;

    private record Call(InetSocketAddress server, long deadline) {
    }

    private record Incoming(InetSocketAddress client, long clientId) {
    }

    private final HomaConfig config;
    private final PacketSink sink;
    private final RpcListener listener;
    private final Map<Long, Call> calls = new HashMap<>();
    private final Map<Long, Incoming> serving = new HashMap<>();
    private long nextId = 2;
    private long nextHandle = 1;
    private boolean closed;
    long droppedGarbage;
    int polls;

    FakeEngine(HomaConfig config, PacketSink sink, RpcListener listener) {
        this.config = config;
        this.sink = sink;
        this.listener = listener;
    }

    static EngineHost.EngineFactory factory() {
        return (config, sink, listener, now) -> new FakeEngine(config, sink, listener);
    }

    @Override
    public long call(InetSocketAddress server, ByteBuf request, long deadlineNanos, long nowNanos) {
        try {
            if (closed) {
                throw new RpcRejectedException(ErrorCode.CANCELLED, "closed");
            }
            if (request.readableBytes() > config.maxUdpPayload() - FRAME - HEADER) {
                throw new RpcRejectedException(ErrorCode.MESSAGE_TOO_LARGE, "fake engine: one datagram only");
            }
            long id = nextId;
            nextId += 2;
            calls.put(id, new Call(server, deadlineNanos));
            sink.send(server, 7, packet(REQUEST, id, request));
            sink.flush();
            return id;
        } finally {
            request.release();
        }
    }

    @Override
    public boolean reply(long serverHandle, ByteBuf response, long nowNanos) {
        try {
            Incoming in = serving.remove(serverHandle);
            if (in == null) {
                return false;
            }
            sink.send(in.client, 7, packet(RESPONSE, in.clientId, response));
            sink.flush();
            return true;
        } finally {
            response.release();
        }
    }

    @Override
    public boolean replyError(long serverHandle, String message, long nowNanos) {
        Incoming in = serving.remove(serverHandle);
        if (in == null) {
            return false;
        }
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer(text.length).writeBytes(text);
        try {
            sink.send(in.client, 7, packet(ERROR, in.clientId, body));
        } finally {
            body.release();
        }
        sink.flush();
        return true;
    }

    @Override
    public void abort(long rpcId, long nowNanos) {
        calls.remove(rpcId);
    }

    @Override
    public void onPacket(InetSocketAddress from, ByteBuf packet, long nowNanos) {
        try {
            int start = packet.readerIndex() + FRAME;
            if (closed || packet.readableBytes() < FRAME + HEADER || packet.getInt(start) != MAGIC) {
                droppedGarbage++;
                return;
            }
            byte type = packet.getByte(start + 4);
            long id = packet.getLong(start + 5);
            ByteBuf body = packet.retainedSlice(start + HEADER, packet.writerIndex() - start - HEADER);
            switch (type) {
                case REQUEST -> {
                    long handle = nextHandle++;
                    serving.put(handle, new Incoming(from, id));
                    listener.onRequest(handle, from, body);
                }
                case RESPONSE -> {
                    if (calls.remove(id) != null) {
                        listener.onResponse(id, body);
                    } else {
                        body.release();
                    }
                }
                case ERROR -> {
                    String text = body.toString(StandardCharsets.UTF_8);
                    body.release();
                    if (calls.remove(id) != null) {
                        listener.onCallFailed(id, new RpcFailure(ErrorCode.HANDLER_ERROR, text, false));
                    }
                }
                default -> {
                    body.release();
                    droppedGarbage++;
                }
            }
        } finally {
            packet.release();
        }
    }

    @Override
    public void poll(long nowNanos) {
        polls++;
        for (Iterator<Map.Entry<Long, Call>> it = calls.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Call> e = it.next();
            if (e.getValue().deadline <= nowNanos) {
                it.remove();
                listener.onCallFailed(e.getKey(), new RpcFailure(ErrorCode.DEADLINE_EXCEEDED, "deadline", false));
            }
        }
    }

    @Override
    public long nextWakeNanos() {
        long next = Long.MAX_VALUE;
        for (Call c : calls.values()) {
            next = Math.min(next, c.deadline);
        }
        return next;
    }

    @Override
    public void close(long nowNanos) {
        closed = true;
        for (Long id : calls.keySet().toArray(new Long[0])) {
            calls.remove(id);
            listener.onCallFailed(id, new RpcFailure(ErrorCode.CANCELLED, "closed", false));
        }
        serving.clear();
    }

    @Override
    public io.homa4j.core.metrics.MetricsSnapshot metrics() {
        return null;
    }

    private static ByteBuf packet(byte type, long id, ByteBuf body) {
        ByteBuf p = PooledByteBufAllocator.DEFAULT.directBuffer(FRAME + HEADER + body.readableBytes()).writeZero(FRAME);
        DataHeader frame = new DataHeader().wrap(p, 0);
        frame.writeCommon(PacketType.DATA, id);
        frame.segmentLength(HEADER + body.readableBytes());
        p.writeInt(MAGIC).writeByte(type).writeLong(id).writeBytes(body, body.readerIndex(), body.readableBytes());
        return p;
    }
}
