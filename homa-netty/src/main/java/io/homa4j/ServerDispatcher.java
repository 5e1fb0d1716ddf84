package io.homa4j;

import io.homa4j.core.RpcFailure;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server half of an endpoint: the handler (and its executor) set by {@code serve}, the delivery of each
 * request to it as a {@link ServerCall}, and the way back of its reply or failure to the engine.
 *
 * <p>Threading: {@link #serve}, {@link #sendResponse} and {@link #sendError} may be called from any thread; requests
 * arrive on the event loop and the handler runs there or on its executor.
 */
final class ServerDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ServerDispatcher.class);

    private final EngineHost host;
    private final Observers observers;
    private final int maxPendingRequests;
    private final int maxResponseBytes;
    private final AtomicReference<Service> service = new AtomicReference<>();
    /** Requests handed to the handler whose answer has not reached the loop yet; event loop only. */
    private int pending;
    /**
     * Requests handed to the handler whose reply has not reached the loop yet, by engine handle: the ones to tell
     * when the client gives up or the handler timeout passes. Event loop only.
     */
    private final LongObjectMap<ServerCall> unanswered = new LongObjectHashMap<>();

    /** @param executor where the handler runs, or null for the event loop */
    private record Service(RpcHandler handler, Executor executor) {
    }

    /**
     * @param maxPendingRequests requests the handler may hold unanswered before new ones are refused
     * @param maxResponseBytes   the longest response payload ({@code maxMessageBytes}; the envelope comes on top)
     */
    ServerDispatcher(EngineHost host, Observers observers, int maxPendingRequests, int maxResponseBytes) {
        this.host = host;
        this.observers = observers;
        this.maxPendingRequests = maxPendingRequests;
        this.maxResponseBytes = maxResponseBytes;
    }

    /** The longest response payload a handler may reply with. */
    int maxResponseBytes() {
        return maxResponseBytes;
    }

    /** Requests handed to the handler and not answered yet; event loop only. */
    int pendingRequests() {
        return pending;
    }

    /**
     * Installs the handler; once per endpoint.
     *
     * @param executor where the handler runs, or null for the event loop
     * @throws IllegalStateException when already serving or closed
     */
    void serve(RpcHandler handler, Executor executor) {
        Objects.requireNonNull(handler, "handler");
        if (host.isClosed()) {
            throw new IllegalStateException("endpoint " + host.localAddress() + " is closed");
        }
        if (!service.compareAndSet(null, new Service(handler, executor))) {
            throw new IllegalStateException("endpoint " + host.localAddress() + " already serves a handler");
        }
    }

    /** The engine's upcall: a whole request message arrived; takes ownership of {@code message}. Event loop. */
    void onRequest(long handle, InetSocketAddress client, ByteBuf message) {
        if (host.isClosed()) {
            message.release();
            return;
        }
        Envelope.RequestHeader header;
        try {
            header = Envelope.readRequest(message);
        } catch (Envelope.MalformedException e) {
            message.release();
            host.engine().replyError(handle, "malformed request envelope: " + e.getMessage(), host.now());
            return;
        }
        // The handler sees the payload alone, at index 0 (absolute gets included); a slice shares the message's
        // reference count, so releasing or retaining it does the same to the message.
        ByteBuf request = message.slice();
        ServerCall ctx = new ServerCall(this, handle, client, request.readableBytes(), host.now(), header);
        unanswered.put(handle, ctx);
        Service s = service.get();
        if (s == null) {
            // Not the handler's failure: it never ran, so the caller may retry (a restarted server receives
            // retries before its application calls serve).
            request.release();
            ctx.refuse(Envelope.Outcome.NOT_SERVING, "endpoint " + host.localAddress() + " does not serve requests");
            return;
        }
        if (host.isShuttingDown()) {
            request.release();
            ctx.refuse(Envelope.Outcome.SHUTTING_DOWN, "endpoint " + host.localAddress() + " is shutting down");
            return;
        }
        if (pending >= maxPendingRequests) {
            request.release();
            ctx.refuse(Envelope.Outcome.OVERLOADED, pending + " requests wait for the handler");
            return;
        }
        pending++;
        ctx.dispatched = true;
        if (s.executor == null) {
            runHandler(s.handler, ctx, request);
            return;
        }
        try {
            s.executor.execute(() -> runHandler(s.handler, ctx, request));
        } catch (RejectedExecutionException overloaded) {
            request.release();
            ctx.refuse(Envelope.Outcome.OVERLOADED, "the handler's executor rejected the request");
        }
    }

    private static void runHandler(RpcHandler handler, ServerCall ctx, ByteBuf request) {
        try {
            handler.handle(ctx, request);
        } catch (Throwable t) {
            if (!ctx.failIfUnreplied("handler failed: " + t)) {
                LOG.warn("handler threw after replying (request from {})", ctx.client, t);
            } else {
                LOG.debug("handler failed (request from {})", ctx.client, t);
            }
        } finally {
            try {
                request.release();
            } catch (IllegalReferenceCountException overReleased) {
                LOG.warn("the handler released a request it did not retain (from {})", ctx.client);
            }
        }
    }

    private void answered(ServerCall ctx) {
        unanswered.remove(ctx.handle);
        if (ctx.dispatched) {
            ctx.dispatched = false;
            pending--;
        }
    }

    /**
     * The engine's upcall: nobody waits for the reply of {@code handle} any more (the client gave up, or the
     * handler timeout passed). Event loop.
     */
    void onRequestAbandoned(long handle, RpcFailure why) {
        ServerCall ctx = unanswered.remove(handle);
        if (ctx != null) {
            LOG.debug("request from {} abandoned: {} {}", ctx.client, why.code(), why.message());
            ctx.cancel();
        }
    }

    /** The endpoint closed: every handler still running learns that its reply will go nowhere. Event loop. */
    void cancelAll() {
        List<ServerCall> running = new ArrayList<>(unanswered.values());
        unanswered.clear();
        for (ServerCall ctx : running) {
            ctx.cancel();
        }
    }

    /**
     * Sends the response message of {@code ctx} (envelope and payload); takes ownership of it (released when the
     * RPC is gone).
     *
     * @param servedBytes the reply payload's length for the observer, or -1 for a failure or refusal
     */
    void sendResponse(ServerCall ctx, ByteBuf message, int servedBytes) {
        if (host.inEventLoop()) {
            respond(ctx, message, servedBytes); // a handler on the loop: no task object per reply
            return;
        }
        host.onLoop(() -> respond(ctx, message, servedBytes), () -> releaseQuietly(message));
    }

    private void respond(ServerCall ctx, ByteBuf message, int servedBytes) {
        answered(ctx);
        if (host.engineStopped()) {
            releaseQuietly(message);
            return;
        }
        if (host.engine().reply(ctx.handle, message, host.now())) {
            observers.requestServed(ctx, servedBytes, host.now());
        }
    }

    /**
     * Releases a response message the engine never took. A handler may have released its reply buffer behind our
     * back (API misuse); the envelope around it then fails to release that part, which is the handler's doing.
     */
    private static void releaseQuietly(ByteBuf message) {
        try {
            if (message.refCnt() > 0) {
                message.release();
            }
        } catch (IllegalReferenceCountException releasedByHandler) {
            LOG.debug("a reply buffer was released by its handler after it was handed over");
        }
    }

    /** Fails the RPC of {@code ctx} with HANDLER_ERROR and {@code message}. */
    void sendError(ServerCall ctx, String message) {
        host.onLoop(() -> {
            answered(ctx);
            if (!host.engineStopped() && host.engine().replyError(ctx.handle, message, host.now())) {
                observers.requestServed(ctx, -1, host.now());
            }
        }, () -> { });
    }
}
