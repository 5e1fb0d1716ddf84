package io.homa4j.grpc.internal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;

import java.util.concurrent.TimeUnit;

/** A channel's calls through its builder's interceptors; the lifecycle is the channel's. */
public final class InterceptedChannel extends ManagedChannel {
    private final ManagedChannel channel;
    private final Channel intercepted;

    public InterceptedChannel(ManagedChannel channel, Channel intercepted) {
        this.channel = channel;
        this.intercepted = intercepted;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(MethodDescriptor<ReqT, RespT> method,
                                                         CallOptions callOptions) {
        return intercepted.newCall(method, callOptions);
    }

    @Override
    public String authority() {
        return channel.authority();
    }

    @Override
    public ManagedChannel shutdown() {
        channel.shutdown();
        return this;
    }

    @Override
    public boolean isShutdown() {
        return channel.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return channel.isTerminated();
    }

    @Override
    public ManagedChannel shutdownNow() {
        channel.shutdownNow();
        return this;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return channel.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
        return channel.toString();
    }
}
