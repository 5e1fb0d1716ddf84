package io.homa4j.core.timer;

import io.homa4j.core.HomaConfig;

/**
 * The tick-count rules of Homa's timeouts: after {@code resendTicks} silent ticks a RESEND, then one every
 * {@code resendTicks}; after {@code abortTicks} the RPC is given up; a server asks for an ACK
 * {@code needAckTicks} after the response went out, then with a doubling interval. Immutable.
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

    /**
     * The client's rule: a call silent for abortTicks is given up when its server has not been heard from at all
     * for abortTicks (it is gone), or when the server, though alive, left {@link #maxUnansweredResends()}
     * RESENDs of this call unanswered. A live server that is only slow (its answers queue behind thousands of
     * others) or unlucky with losses keeps the call alive.
     */
    public boolean clientAbortDue(int silentTicks, int unansweredResends, boolean serverHeardRecently) {
        return silentTicks >= abortTicks && (!serverHeardRecently || unansweredResends >= maxUnansweredResends());
    }

    /** RESENDs a live server may leave unanswered before a call is given up. */
    public int maxUnansweredResends() {
        return Math.max(1, abortTicks / resendTicks);
    }

    /**
     * Whether a client RESEND is due for a call silent for {@code silentTicks} whose last RESEND went at
     * {@code silenceAtLastResend}. After {@code busyStreak} BUSY answers in a row (the server is alive and still
     * working on, or holding back, the call) the interval doubles each time, up to {@link #keepAliveTicks()}: a
     * live server need not be asked every resendTicks, and with hundreds of held calls those questions and
     * their answers were most of the packets on the wire.
     */
    public boolean resendDue(int silentTicks, int silenceAtLastResend, int busyStreak) {
        long interval = Math.min((long) resendTicks << Math.min(busyStreak, 16), keepAliveTicks());
        return silentTicks - silenceAtLastResend >= Math.max(resendTicks, interval);
    }

    /**
     * Period of the BUSY keepalives a receiver sends for a message its grant scheduler holds back, and the longest
     * RESEND interval: a tenth of abortTicks (at least resendTicks), so ten keepalives fit in one abort timeout.
     */
    public int keepAliveTicks() {
        return Math.max(resendTicks, abortTicks / 10);
    }

    /** How long a peer may be unheard before it counts as gone. */
    public long peerGoneNanos(long tickNanos) {
        return abortTicks * tickNanos;
    }

    public boolean resendDue(int silentTicks) {
        return silentTicks >= resendTicks && (silentTicks - resendTicks) % resendTicks == 0;
    }

    /**
     * Whether a server holding a sent response asks for its ACK now: {@code needAckTicks} after the response went
     * out, then after intervals that start at resendTicks and double up to {@link #keepAliveTicks()}. The
     * backoff bounds what a forged request can reflect at its forged source: about 15 NEED_ACKs over the default
     * abort timeout where a fixed resendTicks period sent 200.
     */
    public boolean needAckDue(int silentTicks) {
        if (silentTicks < needAckTicks) {
            return false;
        }
        int since = silentTicks - needAckTicks;
        long dueAt = 0;
        long interval = resendTicks;
        while (dueAt < since) {
            dueAt += interval;
            interval = Math.min(interval * 2, keepAliveTicks());
        }
        return dueAt == since;
    }

    /** Most times a client restarts one call after RPC_UNKNOWN before giving up. */
    public int maxRestarts() {
        return Math.max(1, abortTicks / resendTicks);
    }
}
