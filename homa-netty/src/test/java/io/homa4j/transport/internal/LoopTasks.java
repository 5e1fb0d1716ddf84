package io.homa4j.transport.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The first handler of an embedded channel in tests that run work as its event loop runs a task: a
 * {@link Runnable} written inbound runs here, inside the channel operation, where the embedded channel does not
 * start running its pending tasks again on the first write the work makes (a real loop never runs one task inside
 * another). Anything else goes on down the pipeline.
 */
public final class LoopTasks extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Runnable work) {
            work.run();
        } else {
            ctx.fireChannelRead(msg);
        }
    }
}
