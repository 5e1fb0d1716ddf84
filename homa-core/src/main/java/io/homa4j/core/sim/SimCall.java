package io.homa4j.core.sim;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.RpcFailure;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * One client RPC started by {@link HomaHost#call}: whether and when it ended, with what response (length and
 * CRC-32C; the bytes too when the host retains responses) or what failure. Responses are released as soon as
 * they are checksummed, so a test never owns a buffer. Use on the network's thread only.
 */
public final class SimCall {
    private final HomaHost client;
    private final InetSocketAddress server;
    private final int requestBytes;
    private final int requestCrc32c;
    private final long startNanos;
    private long rpcId = -1;
    private long endNanos = -1;
    private int responseBytes = -1;
    private int responseCrc32c;
    private byte[] responseData;
    private RpcFailure failure;
    private boolean rejected;
    private Consumer<SimCall> whenDone;

    SimCall(HomaHost client, InetSocketAddress server, int requestBytes, int requestCrc32c, long startNanos) {
        this.client = client;
        this.server = server;
        this.requestBytes = requestBytes;
        this.requestCrc32c = requestCrc32c;
        this.startNanos = startNanos;
    }

    public HomaHost client() { return client; }

    public InetSocketAddress server() { return server; }

    /** The engine's RPC id, or -1 if the call was rejected before it started. */
    public long rpcId() { return rpcId; }

    public int requestBytes() { return requestBytes; }

    public int requestCrc32c() { return requestCrc32c; }

    /** Virtual time at which the call was made. */
    public long startNanos() { return startNanos; }

    /** Whether the call ended (response or failure). */
    public boolean isDone() { return endNanos >= 0; }

    /** Whether a response arrived. */
    public boolean succeeded() { return responseBytes >= 0; }

    /** The failure, or null while pending or after success. */
    public RpcFailure failure() { return failure; }

    /** Whether {@code HomaEngine.call} refused to start it (failure() then carries the rejection's code). */
    public boolean wasRejected() { return rejected; }

    /** Virtual time at which the call ended, or -1. */
    public long completionNanos() { return endNanos; }

    /** Completion minus start time, or -1 while pending. */
    public long rttNanos() { return endNanos < 0 ? -1 : endNanos - startNanos; }

    /** Length of the response, or -1 without one. */
    public int responseBytes() { return responseBytes; }

    /** CRC-32C of the response (meaningful only after success, and 0 when the host does not checksum). */
    public int responseCrc32c() { return responseCrc32c; }

    /** A copy of the response when the host retains responses ({@link HomaHost#retainResponses}), else null. */
    public byte[] responseData() { return responseData == null ? null : responseData.clone(); }

    /**
     * Whether the call succeeded with a response byte-identical (length and CRC-32C) to the request; lengths only
     * when the host does not checksum ({@link HomaHost#checksumPayloads}).
     */
    public boolean echoedRequest() {
        return succeeded() && responseBytes == requestBytes && responseCrc32c == requestCrc32c;
    }

    /** Runs {@code action} when the call ends (at once if it has). Replaces an earlier action. */
    public SimCall whenDone(Consumer<SimCall> action) {
        this.whenDone = action;
        if (isDone()) {
            action.accept(this);
        }
        return this;
    }

    @Override
    public String toString() {
        String state = !isDone() ? "pending" : succeeded() ? "ok " + responseBytes + " B" : failure.toString();
        return "SimCall{id=" + rpcId + ", " + client.address().getAddress().getHostAddress() + " -> "
                + server.getAddress().getHostAddress() + ", " + requestBytes + " B, " + state
                + (isDone() ? ", rtt=" + rttNanos() + "ns" : "") + '}';
    }

    void started(long id) {
        this.rpcId = id;
    }

    void rejected(ErrorCode code, String message, long nowNanos) {
        this.rejected = true;
        fail(new RpcFailure(code, message, true), nowNanos);
    }

    void respond(ByteBuf response, boolean checksum, boolean retain, long nowNanos) {
        try {
            responseBytes = response.readableBytes();
            responseCrc32c = checksum ? Payloads.crc32c(response) : 0;
            if (retain) {
                responseData = ByteBufUtil.getBytes(response);
            }
        } finally {
            response.release();
        }
        end(nowNanos);
    }

    void fail(RpcFailure why, long nowNanos) {
        this.failure = why;
        end(nowNanos);
    }

    private void end(long nowNanos) {
        endNanos = nowNanos;
        if (whenDone != null) {
            whenDone.accept(this);
        }
    }
}
