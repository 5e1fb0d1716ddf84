package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcRejectedException;
import io.homa4j.core.wire.SmallMessageAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.concurrent.Executor;

/**
 * The client half of an endpoint: the calls in flight by engine RPC id, their start in the engine, and their end
 * (response, failure, or abandonment by the caller). Every call ends exactly once, with its future completed and
 * the observer told.
 *
 * <p>Relies on the engine's contract that {@code call()} makes no listener upcall for the RPC it starts before
 * it returns (the engine only queues packets there; outcomes come from later packets, polls or close), so the id
 * is always in the table before its outcome arrives.
 *
 * <p>Threading: {@link #start} and {@link #abandon} may be called from any thread and hand their work to the
 * event loop; the rest runs on the loop.
 */
final class ClientCallTable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientCallTable.class);

    private final EngineHost host;
    private final Observers observers;
    private final CallWindow window;
    private final Executor callbackExecutor;
    private final int maxPayloadBytes;
    /** Calls by engine RPC id; event loop only. */
    private final LongObjectMap<PendingCall<?>> calls = new LongObjectHashMap<>();

    /**
     * @param maxCallsInFlight the window: calls outstanding at once
     * @param callbackExecutor where futures complete, or null for the event loop
     * @param maxPayloadBytes  the longest request payload ({@code maxMessageBytes}; the envelope comes on top)
     */
    ClientCallTable(EngineHost host, Observers observers, int maxCallsInFlight, Executor callbackExecutor,
                    int maxPayloadBytes) {
        this.host = host;
        this.maxPayloadBytes = maxPayloadBytes;
        this.observers = observers;
        this.window = new CallWindow(maxCallsInFlight);
        this.callbackExecutor = callbackExecutor;
    }

    CallWindow window() {
        return window;
    }

    /** Where futures complete and ready callbacks run, or null for the event loop. */
    Executor callbackExecutor() {
        return callbackExecutor;
    }

    /** True when no call is in the engine; event loop only. */
    boolean isEmpty() {
        return calls.isEmpty();
    }

    boolean inEventLoop() {
        return host.inEventLoop();
    }

    /**
     * Starts {@code call} in the engine: wraps {@code payload} in the request envelope with the call's deadline
     * (absolute, {@code Long.MAX_VALUE} for none) and metadata. Fails the call when it cannot start.
     *
     * <p>Ownership: takes over the caller's reference to {@code payload}, which ends in the request envelope
     * (owned by the engine once {@code call} took it, released here on every path that stops before). A payload
     * released by someone else after the API checked it (an earlier call handed the same buffer ended meanwhile)
     * fails the call with INVALID_ARGUMENT and leaves nothing to release.
     */
    void start(PendingCall<?> call, ByteBuf payload, long deadlineNanos, Metadata metadata) {
        if (host.isShuttingDown()) {
            payload.release();
            failUnstarted(call, closedError());
            return;
        }
        if (!window.tryAcquire()) {
            payload.release();
            failUnstarted(call, new HomaException(ErrorCode.RESOURCE_EXHAUSTED, "the in-flight window of "
                    + window.capacity() + " calls is full (see HomaEndpoint.awaitReady / onReady)", true));
            return;
        }
        call.holdPlace();
        if (payload.readableBytes() > maxPayloadBytes) {
            int length = payload.readableBytes();
            payload.release();
            failUnstarted(call, new HomaException(ErrorCode.MESSAGE_TOO_LARGE, "request of " + length
                    + " bytes exceeds maxMessageBytes " + maxPayloadBytes, true));
            return;
        }
        ByteBuf request;
        try {
            request = Envelope.request(SmallMessageAllocator.INSTANCE, deadlineNanos == Long.MAX_VALUE
                    ? Envelope.NO_DEADLINE : deadlineNanos - call.startNanos, metadata, payload);
        } catch (IllegalReferenceCountException releasedMeanwhile) {
            failUnstarted(call, new HomaException(ErrorCode.INVALID_ARGUMENT, "the request buffer was released "
                    + "while the call started (handed to another call, or released by another thread)", true));
            return;
        }
        host.onLoop(() -> startOnLoop(call, request, deadlineNanos), () -> {
            request.release();
            failUnstarted(call, closedError());
        });
    }

    private void startOnLoop(PendingCall<?> call, ByteBuf request, long deadlineNanos) {
        if (call.isDone()) {
            // The caller cancelled (or completed the future) before the loop took the call up: it never reaches
            // the engine, but it ended, and the observer hears of it like of any other cancellation.
            request.release();
            observers.callFailed(call, ErrorCode.CANCELLED);
            return;
        }
        if (host.engineStopped()) {
            request.release();
            failUnstarted(call, closedError());
            return;
        }
        try {
            long id = host.engine().call(call.server, request, deadlineNanos, host.now());
            call.rpcId = id;
            calls.put(id, call);
            host.callStarted(call.server);
        } catch (RpcRejectedException rejected) {
            fail(call, new HomaException(rejected.code(), rejected.getMessage(), true, rejected));
        } catch (RuntimeException bug) {
            LOG.error("engine threw from call()", bug);
            fail(call, new HomaException(ErrorCode.UNAVAILABLE, "engine failure: " + bug, false, bug));
        }
    }

    /**
     * Ends a call that never reached the engine. The observer is told on the event loop, like of every other
     * end, or on this thread when the loop is gone.
     */
    private void failUnstarted(PendingCall<?> call, HomaException error) {
        if (call.fail(error)) {
            Runnable tell = () -> observers.callFailed(call, error.code());
            host.onLoop(tell, tell);
        }
    }

    /** The caller completed the future itself (cancel, orTimeout, ...): abort the RPC. */
    void abandon(PendingCall<?> call) {
        host.onLoop(() -> {
            if (call.rpcId != PendingCall.NO_ID && calls.get(call.rpcId) == call) {
                calls.remove(call.rpcId);
                if (!host.engineStopped()) {
                    host.engine().abort(call.rpcId, host.now());
                }
                observers.callFailed(call, ErrorCode.CANCELLED);
            }
        }, () -> { });
    }

    /** The engine's upcall: the response of {@code rpcId} arrived; takes ownership of {@code response}. */
    void onResponse(long rpcId, ByteBuf response) {
        PendingCall<?> call = calls.remove(rpcId);
        if (call == null) {
            response.release();
            return;
        }
        Envelope.ResponseHeader header;
        try {
            header = Envelope.readResponse(response);
        } catch (Envelope.MalformedException e) {
            response.release();
            fail(call, new HomaException(ErrorCode.PROTOCOL_ERROR, "malformed response envelope: "
                    + e.getMessage(), false));
            return;
        }
        if (header.outcome() == Envelope.Outcome.OK) {
            int length = response.readableBytes();
            // The payload alone, at index 0; the slice shares the message's reference count.
            if (call.deliver(response.slice(), header.metadata())) {
                observers.callCompleted(call, length);
            } else {
                callerEndedFirst(call);
            }
            return;
        }
        String description = Envelope.description(response);
        response.release();
        fail(call, switch (header.outcome()) {
            case APPLICATION_ERROR -> new HomaException(header.status(), description, header.metadata());
            case OVERLOADED -> new HomaException(ErrorCode.RESOURCE_EXHAUSTED, "server " + call.server
                    + " overloaded, the handler did not run: " + description, true);
            case SHUTTING_DOWN -> new HomaException(ErrorCode.UNAVAILABLE, "server " + call.server
                    + " is shutting down, the handler did not run", true);
            case NOT_SERVING -> new HomaException(ErrorCode.UNAVAILABLE, "server " + call.server
                    + " does not serve requests (yet), the handler did not run", true);
            case RESPONSE_TOO_LARGE -> new HomaException(ErrorCode.MESSAGE_TOO_LARGE, "server " + call.server
                    + ": " + description, false);
            case OK -> throw new AssertionError("handled above");
        });
    }

    /** The engine's upcall: {@code rpcId} ended without a response. */
    void onCallFailed(long rpcId, RpcFailure failure) {
        PendingCall<?> call = calls.remove(rpcId);
        if (call != null) {
            fail(call, new HomaException(failure.code(), failure.message(), failure.retrySafe()));
        }
    }

    /** At close, after the engine failed its calls: fails whatever it missed with CANCELLED. */
    void cancelAll() {
        for (PendingCall<?> call : new ArrayList<>(calls.values())) {
            fail(call, new HomaException(ErrorCode.CANCELLED, "endpoint closed", false));
        }
        calls.clear();
    }

    private void fail(PendingCall<?> call, HomaException error) {
        if (call.fail(error)) {
            observers.callFailed(call, error.code());
        } else {
            callerEndedFirst(call);
        }
    }

    /**
     * The engine ended {@code call} (taken out of {@link #calls} for that) after its caller had already completed
     * the future (cancel, complete, orTimeout, ...), before the loop ran the caller's {@link #abandon} task. That
     * task now finds nothing to abort, so the observer hears of the caller's end here: exactly one of the two
     * takes the call out of {@link #calls}, so it is told once, also when a response crosses a cancellation.
     */
    private void callerEndedFirst(PendingCall<?> call) {
        observers.callFailed(call, ErrorCode.CANCELLED);
    }

    private HomaException closedError() {
        return new HomaException(ErrorCode.CANCELLED, "endpoint " + host.localAddress()
                + (host.isClosed() ? " is closed" : " is shutting down"), true);
    }
}
