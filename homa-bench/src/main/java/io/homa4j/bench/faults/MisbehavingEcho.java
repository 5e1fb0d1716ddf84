package io.homa4j.bench.faults;

import io.homa4j.RpcContext;
import io.homa4j.RpcHandler;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The echo handler of the {@code faults} and {@code soak} runs, which mishandles every tenth request as its
 * {@link FaultPlan.Handler} says (careless handlers): never answers it, or replies with a buffer it then
 * releases. Counts its runs. Thread-safe.
 */
public final class MisbehavingEcho implements RpcHandler {
    private final FaultPlan.Handler mode;
    private final AtomicLong runs = new AtomicLong();

    public MisbehavingEcho(FaultPlan.Handler mode) {
        this.mode = mode;
    }

    /** The client's default deadline such a server needs: the calls it never answers end by it. */
    public java.time.Duration clientDeadline() {
        return mode == FaultPlan.Handler.NEVER_REPLY ? FaultPlan.NEVER_REPLY_DEADLINE : java.time.Duration.ofSeconds(30);
    }

    @Override
    public void handle(RpcContext ctx, ByteBuf request) {
        long run = runs.incrementAndGet();
        if (run % 10 == 0 && mode == FaultPlan.Handler.NEVER_REPLY) {
            return; // the client's deadline ends the call, and it tells the server
        }
        if (run % 10 == 0 && mode == FaultPlan.Handler.RELEASED_REPLY) {
            ByteBuf copy = request.copy();
            ctx.reply(copy);
            copy.release(); // the misuse: the endpoint owns it now
            return;
        }
        ctx.reply(request.retain());
    }

    /** How many requests the handler got. */
    public long runs() {
        return runs.get();
    }
}
