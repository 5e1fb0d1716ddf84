package io.homa4j;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-call options of {@link HomaEndpoint#call(java.net.InetSocketAddress, io.netty.buffer.ByteBuf, CallOptions)}:
 * the deadline and the request's headers. Immutable and thread-safe; reuse instances freely.
 */
public final class CallOptions {
    /** {@link #timeoutNanos} of options that take the endpoint's default deadline. */
    private static final long ENDPOINT_DEFAULT = -1;

    /**
     * The endpoint's default deadline ({@link HomaEndpointBuilder#defaultCallTimeout}, 30 s unless set): a call
     * whose server never answers (a handler that never replies keeps it alive with BUSY) still ends.
     */
    public static final CallOptions DEFAULT = new CallOptions(ENDPOINT_DEFAULT, Long.MAX_VALUE, Metadata.EMPTY);

    /** No deadline at all: the call ends with the response, when the server stops answering, or when cancelled. */
    public static final CallOptions NO_DEADLINE = new CallOptions(0, Long.MAX_VALUE, Metadata.EMPTY);

    /** Relative, > 0; 0 when an absolute deadline (or none) is used; {@link #ENDPOINT_DEFAULT}. */
    private final long timeoutNanos;
    /** Absolute System.nanoTime(), or Long.MAX_VALUE. */
    private final long deadlineNanos;
    private final Metadata metadata;

    private CallOptions(long timeoutNanos, long deadlineNanos, Metadata metadata) {
        this.timeoutNanos = timeoutNanos;
        this.deadlineNanos = deadlineNanos;
        this.metadata = metadata;
    }

    /**
     * The call fails with {@code DEADLINE_EXCEEDED} when no response arrived within {@code timeout}, counted from
     * the moment {@code call} is invoked.
     *
     * @param timeout the time the call may take
     * @return the options
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public static CallOptions timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            return NO_DEADLINE; // beyond 292 years: no deadline, not the endpoint's default
        }
        return new CallOptions(nanos, Long.MAX_VALUE, Metadata.EMPTY);
    }

    /**
     * The call fails with {@code DEADLINE_EXCEEDED} when no response arrived by {@code nanoTime}, an absolute
     * {@link System#nanoTime()} value. A deadline already past fails the call at once.
     *
     * @param nanoTime the deadline
     * @return the options
     */
    public static CallOptions deadlineNanos(long nanoTime) {
        return new CallOptions(0, nanoTime, Metadata.EMPTY);
    }

    /**
     * These options with {@code metadata} sent along with the request (the handler reads it with
     * {@link RpcContext#metadata()}); the deadline stays as it is.
     *
     * @param metadata the request's headers
     * @return the new options
     */
    public CallOptions withMetadata(Metadata metadata) {
        return new CallOptions(timeoutNanos, deadlineNanos, Objects.requireNonNull(metadata, "metadata"));
    }

    /** @return the headers sent with the request */
    public Metadata metadata() {
        return metadata;
    }

    /**
     * The absolute deadline for a call started at {@code nowNanos}; {@code Long.MAX_VALUE} for none.
     *
     * @param defaultTimeoutNanos the endpoint's default, used for {@link #DEFAULT} ({@code Long.MAX_VALUE}: none)
     */
    long deadlineFrom(long nowNanos, long defaultTimeoutNanos) {
        long timeout = timeoutNanos == ENDPOINT_DEFAULT ? defaultTimeoutNanos : timeoutNanos;
        if (timeout > 0 && timeout != Long.MAX_VALUE) {
            long deadline = nowNanos + timeout;
            return deadline < nowNanos ? Long.MAX_VALUE : deadline; // overflow: effectively no deadline
        }
        return timeoutNanos == ENDPOINT_DEFAULT ? Long.MAX_VALUE : deadlineNanos;
    }

    @Override
    public String toString() {
        String md = metadata.isEmpty() ? "" : ", " + metadata;
        if (timeoutNanos == ENDPOINT_DEFAULT) {
            return "CallOptions{DEFAULT" + md + '}';
        }
        if (timeoutNanos > 0) {
            return "CallOptions{timeout=" + Duration.ofNanos(timeoutNanos) + md + '}';
        }
        return (deadlineNanos == Long.MAX_VALUE ? "CallOptions{NO_DEADLINE" : "CallOptions{deadlineNanos="
                + deadlineNanos) + md + '}';
    }
}
