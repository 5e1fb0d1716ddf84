package io.homa4j.core;

import io.netty.buffer.ByteBuf;

import java.net.InetSocketAddress;

/** A listener for engines whose upcalls a test does not look at: it releases what it is handed, nothing more. */
final class ReleasingListener implements RpcListener {
    @Override
    public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
        request.release();
    }

    @Override
    public void onResponse(long rpcId, ByteBuf response) {
        response.release();
    }

    @Override
    public void onCallFailed(long rpcId, RpcFailure failure) {
    }
}
