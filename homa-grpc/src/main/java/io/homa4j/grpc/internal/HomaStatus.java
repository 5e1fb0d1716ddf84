package io.homa4j.grpc.internal;

import io.grpc.Status;
import io.homa4j.HomaException;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/** Homa4J's call failures as gRPC statuses. */
public final class HomaStatus {
    private HomaStatus() {
    }

    /**
     * The status a failed Homa call ends a gRPC call with; the failure is the status's cause.
     *
     * @param failure what the call's future failed with (unwrapped from a {@link CompletionException})
     */
    public static Status of(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof HomaException) {
            HomaException e = (HomaException) cause;
            return codeOf(e).toStatus().withDescription("Homa: " + e.getMessage()).withCause(e);
        }
        if (cause instanceof CancellationException) {
            return Status.CANCELLED.withDescription("Homa call cancelled").withCause(cause);
        }
        return Status.INTERNAL.withDescription("Homa call failed: " + cause).withCause(cause);
    }

    private static Status.Code codeOf(HomaException e) {
        switch (e.code()) {
            case DEADLINE_EXCEEDED:
                return Status.Code.DEADLINE_EXCEEDED;
            case CANCELLED:
                return Status.Code.CANCELLED;
            case UNAVAILABLE:
                return Status.Code.UNAVAILABLE;
            case RESOURCE_EXHAUSTED:
            case MESSAGE_TOO_LARGE:
                return Status.Code.RESOURCE_EXHAUSTED;
            case HANDLER_ERROR:
                // The Homa handler itself failed before a gRPC status was framed: an application error.
                return Status.Code.UNKNOWN;
            case PROTOCOL_ERROR:
            case INVALID_ARGUMENT:
            default:
                return Status.Code.INTERNAL;
        }
    }
}
