package io.homa4j.core.timer;

import io.homa4j.core.HomaConfig;

/**
 * The tick-count rules of Homa's timeouts: after {@code resendTicks} silent ticks a RESEND, then one every
 * {@code resendTicks}; after {@code abortTicks} the RPC is given up; a server asks for an ACK
 * {@code needAckTicks} after the response went out, then every {@code resendTicks}. Immutable.
 */
public final class SilenceRules {
    private final int resendTicks;
    private final int abortTicks;
    private final int needAckTicks;

    public SilenceRules(HomaConfig config) {
        this.resendTicks = config.resendTicks();
        this.abortTicks = config.abortTicks();
        this.needAckTicks = config.needAckTicks();
    }

    public boolean abortDue(int silentTicks) {
        return silentTicks >= abortTicks;
    }

    public boolean resendDue(int silentTicks) {
        return silentTicks >= resendTicks && (silentTicks - resendTicks) % resendTicks == 0;
    }

    public boolean needAckDue(int silentTicks) {
        return silentTicks >= needAckTicks && (silentTicks - needAckTicks) % resendTicks == 0;
    }

    /** Most times a client restarts one call after RPC_UNKNOWN before giving up. */
    public int maxRestarts() {
        return Math.max(1, abortTicks / resendTicks);
    }
}
