package io.homa4j.core.internal.timer;

import io.homa4j.core.HomaConfig;

/**
 * The tick-count rules of Homa's timeouts: after {@code resendTicks} silent ticks a RESEND; after
 * {@code abortTicks} the RPC is given up; a server asks for an ACK {@code needAckTicks} after the response went
 * out. A server's probes of a silent client back off and stop after {@link #MAX_UNANSWERED_PROBES}. Immutable.
 */
public final class SilenceRules {
    private final int resendTicks;
    private final int abortTicks;
    private final int needAckTicks;
    private final int loneNeedAckTicks;
    private final long tickNanos;

    public SilenceRules(HomaConfig config) {
        this.resendTicks = config.resendTicks();
        this.tickNanos = config.tickNanos();
        this.abortTicks = config.abortTicks();
        this.needAckTicks = config.needAckTicks();
        this.loneNeedAckTicks = config.loneNeedAckTicks();
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
        return clientAbortDue(silentTicks, unansweredResends, serverHeardRecently, resendTicks);
    }

    /**
     * {@link #clientAbortDue(int, int, boolean)} for a server whose RESEND interval is {@code peerResendTicks}
     * (see {@link #resendTicksFor}): as many RESENDs fit in abortTicks, so a longer interval asks fewer.
     */
    public boolean clientAbortDue(int silentTicks, int unansweredResends, boolean serverHeardRecently,
                                  int peerResendTicks) {
        return silentTicks >= abortTicks
                && (!serverHeardRecently || unansweredResends >= maxUnansweredResends(peerResendTicks));
    }

    /** RESENDs a live server may leave unanswered before a call is given up. */
    public int maxUnansweredResends() {
        return maxUnansweredResends(resendTicks);
    }

    private int maxUnansweredResends(int peerResendTicks) {
        return Math.max(1, abortTicks / peerResendTicks);
    }

    /**
     * Silent ticks before a RESEND to a peer whose data takes {@code rtt} to arrive (queueing included): the
     * configured {@code resendTicks} at least (a peer without samples, or a fast one, changes nothing), the
     * estimator's {@link RttEstimator#timeoutNanos() SRTT + 4 x RTTVAR} rounded up plus one tick (a silence of n
     * ticks may have begun just before the first of them), at most {@link #keepAliveTicks()} so a real loss is
     * still repaired well within abortTicks.
     */
    public int resendTicksFor(RttEstimator rtt) {
        long timeout = rtt.timeoutNanos();
        if (timeout <= (resendTicks - 1) * tickNanos) {
            return resendTicks;
        }
        long ticks = (timeout + tickNanos - 1) / tickNanos + 1;
        return (int) Math.max(resendTicks, Math.min(keepAliveTicks(), ticks));
    }

    /**
     * Whether a client RESEND is due for a call silent for {@code silentTicks} whose last RESEND went at
     * {@code silenceAtLastResend}. After {@code busyStreak} BUSY answers in a row (the server is alive and still
     * working on, or holding back, the call) the interval doubles each time, up to {@link #keepAliveTicks()}: a
     * live server need not be asked every resendTicks, and with hundreds of held calls those questions and
     * their answers were most of the packets on the wire.
     */
    public boolean resendDue(int silentTicks, int silenceAtLastResend, int busyStreak) {
        return resendDue(silentTicks, silenceAtLastResend, busyStreak, resendTicks);
    }

    /** {@link #resendDue(int, int, int)} with the peer's own RESEND interval (see {@link #resendTicksFor}). */
    public boolean resendDue(int silentTicks, int silenceAtLastResend, int busyStreak, int peerResendTicks) {
        long interval = Math.min((long) peerResendTicks << Math.min(busyStreak, 16), keepAliveTicks());
        return silentTicks - silenceAtLastResend >= Math.max(peerResendTicks, interval);
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

    /**
     * Probes (a server's RESEND for missing request bytes, its NEED_ACK for a sent response) that go unanswered
     * before a server stops asking a client that has not proven its address. Anyone can send a first DATA packet
     * with a forged source: each probe is reflected at that address, so they are what a forged packet buys. Two
     * probes (52 + 52 bytes on the wire) plus one CUTOFFS (76) keep the reflection under 3x the 69 bytes of the
     * smallest forged first packet; uncapped, a forged packet would draw a RESEND per tick. A live client answers
     * a probe, or asks itself when its own timer fires, and every packet from it restores the budget.
     *
     * <p>A client has proven its address (for one RPC) once it sent more than the unscheduled bytes: past those it
     * only sends what our GRANTs allow, so it receives what we send. Its probes are not capped: a forger cannot
     * get there without sending more than the probes it would draw.
     */
    public static final int MAX_UNANSWERED_PROBES = 2;

    /**
     * Whether a server probes its silent client now: the first probe after {@code firstAfterTicks} silent ticks,
     * then after intervals that start at resendTicks and double (capped at {@link #keepAliveTicks()}); at most
     * {@link #MAX_UNANSWERED_PROBES} without an answer when {@code capped}. {@code silenceAtLastProbe} is the
     * silence count when the last probe went, or when the client was last heard without progress.
     */
    public boolean probeDue(int silentTicks, int silenceAtLastProbe, int unansweredProbes, int firstAfterTicks,
                            boolean capped) {
        if (capped && unansweredProbes >= MAX_UNANSWERED_PROBES) {
            return false;
        }
        return silentTicks - silenceAtLastProbe >= probeInterval(unansweredProbes, firstAfterTicks);
    }

    /**
     * Silent ticks from now until a server waiting for its client can next have something to do: its next probe
     * (as {@link #probeDue} times it) or the abort timeout, whichever comes first; at least one.
     */
    public int ticksUntilProbeOrAbort(int silentTicks, int silenceAtLastProbe, int unansweredProbes,
                                      int firstAfterTicks, boolean capped) {
        long untilAbort = (long) abortTicks - silentTicks;
        long untilProbe = capped && unansweredProbes >= MAX_UNANSWERED_PROBES ? Long.MAX_VALUE
                : silenceAtLastProbe + probeInterval(unansweredProbes, firstAfterTicks) - silentTicks;
        return (int) Math.max(1, Math.min(untilAbort, untilProbe));
    }

    private long probeInterval(int unansweredProbes, int firstAfterTicks) {
        return unansweredProbes == 0 ? firstAfterTicks
                : Math.min((long) resendTicks << Math.min(unansweredProbes - 1, 16), keepAliveTicks());
    }

    /**
     * Whether a receiver sends its peer a BUSY keepalive now, after {@code undrainedTicks} silent ticks that our
     * switch port explains (the missing bytes may wait there behind higher levels, so no RESEND asks for them: see
     * {@code RpcSilence#silentTick(boolean)}): every {@link #keepAliveTicks()} of them, as for a message our grant
     * scheduler holds back, so the sender's silence timer does not give up an RPC whose bytes are only queued.
     */
    public boolean keepAliveDue(int undrainedTicks) {
        return undrainedTicks > 0 && undrainedTicks % keepAliveTicks() == 0;
    }

    /** Silent ticks before a server's first RESEND for missing request bytes. */
    public int resendTicks() {
        return resendTicks;
    }

    /** Silent ticks after the whole response went out before a server's first NEED_ACK. */
    public int needAckTicks() {
        return needAckTicks;
    }

    /** {@link #needAckTicks()} for a response that is the server's only RPC (see HomaConfig.loneNeedAckTicks). */
    public int loneNeedAckTicks() {
        return loneNeedAckTicks;
    }

    /** Most times a client restarts one call after RPC_UNKNOWN before giving up. */
    public int maxRestarts() {
        return Math.max(1, abortTicks / resendTicks);
    }
}
