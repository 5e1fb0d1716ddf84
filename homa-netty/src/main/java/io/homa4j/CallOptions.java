package io.homa4j;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-call options of {@link HomaEndpoint#call(java.net.InetSocketAddress, io.netty.buffer.ByteBuf, CallOptions)}.
 * Immutable and thread-safe; reuse instances freely.
 */
public final class CallOptions {

    /**
     * The endpoint's default deadline ({@link HomaEndpointBuilder#defaultCallTimeout}, 30 s unless set): a call
     * whose server never answers (a handler that never replies keeps it alive with BUSY) still ends.
     */
    public static final CallOptions DEFAULT = new CallOptions(0, Long.MAX_VALUE);

    /** No deadline at all: the call ends with the response, when the server stops answering, or when cancelled. */
    public static final CallOptions NO_DEADLINE = new CallOptions(0, Long.MAX_VALUE);

    private final long timeoutNanos;   // relative, > 0; 0 when an absolute deadline (or none) is used
    private final long deadlineNanos;  // absolute System.nanoTime(), or Long.MAX_VALUE

    private CallOptions(long timeoutNanos, long deadlineNanos) {
        this.timeoutNanos = timeoutNanos;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * The call fails with {@code DEADLINE_EXCEEDED} when no response arrived within {@code timeout}, counted from
     * the moment {@code call} is invoked.
     *
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
            return DEFAULT;
        }
        return new CallOptions(nanos, Long.MAX_VALUE);
    }

    /**
     * The call fails with {@code DEADLINE_EXCEEDED} when no response arrived by {@code nanoTime}, an absolute
     * {@link System#nanoTime()} value. A deadline already past fails the call at once.
     */
    public static CallOptions deadlineNanos(long nanoTime) {
        return new CallOptions(0, nanoTime);
    }

    /**
     * The absolute deadline for a call started at {@code nowNanos}; {@code Long.MAX_VALUE} for none.
     *
     * @param defaultTimeoutNanos the endpoint's default, used for {@link #DEFAULT} ({@code Long.MAX_VALUE}: none)
     */
    long deadlineFrom(long nowNanos, long defaultTimeoutNanos) {
        long timeout = this == DEFAULT ? defaultTimeoutNanos : timeoutNanos;
        if (timeout > 0 && timeout != Long.MAX_VALUE) {
            long deadline = nowNanos + timeout;
            return deadline < nowNanos ? Long.MAX_VALUE : deadline; // overflow: effectively no deadline
        }
        return this == DEFAULT ? Long.MAX_VALUE : deadlineNanos;
    }

    @Override
    public String toString() {
        if (timeoutNanos > 0) {
            return "CallOptions{timeout=" + Duration.ofNanos(timeoutNanos) + '}';
        }
        if (this == DEFAULT) {
            return "CallOptions{DEFAULT}";
        }
        return deadlineNanos == Long.MAX_VALUE ? "CallOptions{NO_DEADLINE}" : "CallOptions{deadlineNanos=" + deadlineNanos + '}';
    }
}
