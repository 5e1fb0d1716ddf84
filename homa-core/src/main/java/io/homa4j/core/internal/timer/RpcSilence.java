package io.homa4j.core.internal.timer;

/**
 * The silence of one RPC as its timer sees it: ticks without a word from the peer, ticks our own grant
 * scheduler held the RPC's incoming message back; on a client, the RESENDs sent into the silence and the BUSY
 * answers that stretch them; on a server, the probes (RESEND, NEED_ACK) sent to a silent client. Only the RPC's half of the engine changes it, through these methods; the
 * verdicts come from {@link SilenceRules}. Engine thread only.
 */
public final class RpcSilence {
    private int silentTicks;
    /**
     * The silent ticks in which our switch port was seen drained at the level the missing bytes were sent at (see
     * {@link #silentTick(boolean)}): had they been queued there, they would have come. The RESEND timers count
     * these alone. Reset with silentTicks.
     */
    private int drainedTicks;
    /** The other silent ticks: the missing bytes may still wait at the port behind higher levels. */
    private int undrainedTicks;
    /** Whether the latest silent tick was one of {@link #undrainedTicks}. */
    private boolean lastTickUndrained;
    private int heldTicks;
    private int unansweredResends;
    /** {@link #resendClock} when the last RESEND went out (0: none since the peer was last heard). */
    private int silenceAtLastResend;
    /** BUSY answers in a row since the peer last moved the RPC on (data or grant); stretches RESENDs. */
    private int busyStreak;
    /** A server's RESENDs / NEED_ACKs sent since the client was last heard (see {@link SilenceRules#probeDue}). */
    private int unansweredProbes;
    /** {@link #silentTicks} when the last probe went or the client was last heard. */
    private int silenceAtLastProbe;

    /** The peer sent something for this RPC (or we are the ones holding it up): the silence ends. */
    public void heard() {
        silentTicks = 0;
    }

    /** The peer moved the RPC on (data, a grant): the silence ends and BUSY answers count from zero again. */
    public void movedOn() {
        silentTicks = 0;
        busyStreak = 0;
    }

    /** The peer answered BUSY: alive, but still working on (or holding back) the RPC. */
    public void busy() {
        silentTicks = 0;
        busyStreak++;
    }

    /**
     * A tick while our own grant scheduler holds the RPC's incoming message back (every granted byte arrived):
     * not the peer's silence.
     *
     * @return true when a BUSY keepalive is due, every {@link SilenceRules#keepAliveTicks()} such ticks, so the
     *         sender's silence timer does not give the RPC up
     */
    public boolean heldTick(SilenceRules rules) {
        silentTicks = 0;
        return ++heldTicks % rules.keepAliveTicks() == 0;
    }

    /**
     * A tick without a word from the peer that our switch port cannot explain (nothing of a message of theirs is
     * owed to us: a response not begun, an ACK awaited); a new silence starts with no RESEND sent into it.
     *
     * @return the silent ticks so far
     */
    public int silentTick() {
        return silentTick(true);
    }

    /**
     * A tick without a word from the peer about a message whose missing bytes our switch port may hold:
     * {@code drained} says whether the port was seen drained at their level during the tick (see
     * {@code DownlinkDrain}). Every silent tick counts towards the abort timeout; towards a RESEND only a drained
     * one (until the silence is as long as the abort timeout: {@link #resendClock}): while the port was not seen
     * drained, the bytes may still wait there behind higher levels (on a slow loaded link, for longer than any
     * RESEND interval), and a RESEND would draw a copy of packets still on their way. Those ticks instead draw a
     * BUSY keepalive now and then ({@link #keepAliveDue}).
     *
     * @return the silent ticks so far
     */
    public int silentTick(boolean drained) {
        heldTicks = 0;
        if (silentTicks == 0) {
            unansweredResends = 0;
            silenceAtLastResend = 0;
            drainedTicks = 0;
            undrainedTicks = 0;
        }
        if (drained) {
            drainedTicks++;
        } else {
            undrainedTicks++;
        }
        lastTickUndrained = !drained;
        return ++silentTicks;
    }

    /**
     * Whether the latest silent tick, one our switch port explains, is due to send the peer a BUSY keepalive (see
     * {@link SilenceRules#keepAliveDue}).
     */
    public boolean keepAliveDue(SilenceRules rules) {
        return lastTickUndrained && !rules.abortDue(silentTicks) && rules.keepAliveDue(undrainedTicks);
    }

    /**
     * {@code ticks} ticks without a word from the peer that our switch port cannot explain, counted at once: the
     * engine's tick stood for several (see {@code TickClock#elapsedTicks}).
     *
     * @return the silent ticks so far
     */
    public int silentTicks(int ticks) {
        silentTick();
        int more = Math.max(0, ticks - 1);
        drainedTicks += more;
        silentTicks += more;
        return silentTicks;
    }

    /**
     * Ticks from now until a server's next probe of its silent client, or the abort timeout, can be due (see
     * {@link SilenceRules#ticksUntilProbeOrAbort}); the arguments as for {@link #takeProbe}.
     */
    public int ticksUntilProbeOrAbort(SilenceRules rules, int firstAfterTicks, boolean capped) {
        if (silentTicks < silenceAtLastProbe) {
            return 1; // the silence restarted since the last probe: takeProbe will reset the budget next tick
        }
        return rules.ticksUntilProbeOrAbort(silentTicks, silenceAtLastProbe, unansweredProbes, firstAfterTicks,
                capped);
    }

    /**
     * The silence as the RESEND timers count it: the ticks our switch port cannot explain ({@link #drainedTicks}).
     * Once the whole silence reaches abortTicks, every tick counts: a port that stays busy at the missing bytes'
     * level for that long (an overload that does not end) must not keep a real loss from being repaired, nor a
     * peer that stopped answering from being given up (see {@link #liveAbortDue}).
     */
    private int resendClock(SilenceRules rules) {
        return rules.abortDue(silentTicks) ? silentTicks : drainedTicks;
    }

    /** A RESEND went out into this silence. */
    public void resendSent(SilenceRules rules) {
        silenceAtLastResend = resendClock(rules);
        unansweredResends++;
    }

    /**
     * Whether a client RESEND is due now, {@code peerResendTicks} being the server's RESEND interval (see
     * {@link SilenceRules#resendDue(int, int, int, int)}), on the silence the port cannot explain
     * ({@link #resendClock}).
     */
    public boolean clientResendDue(SilenceRules rules, int peerResendTicks) {
        return rules.resendDue(resendClock(rules), silenceAtLastResend, busyStreak, peerResendTicks);
    }

    /**
     * Whether a server's RESEND to a client that proved its address is due now: every {@code peerResendTicks} of
     * the silence the port cannot explain ({@link #resendClock}), without back-off: missing granted bytes are most often queued behind a
     * congested port, and backing off there delayed a long message under an incast stream past its deadline.
     */
    public boolean serverResendDue(SilenceRules rules, int peerResendTicks) {
        return rules.resendDue(resendClock(rules), silenceAtLastResend, 0, peerResendTicks);
    }

    /**
     * Whether the receiver of a message from a live-or-gone peer gives the RPC up now (see
     * {@link SilenceRules#clientAbortDue(int, int, boolean, int)}): a client waiting for its response, or a
     * server for the request of a client that proved its address. A peer heard from lately whose bytes may wait at
     * our switch port is waited for; one gone, or one that left our RESENDs unanswered, is not.
     */
    public boolean liveAbortDue(SilenceRules rules, boolean peerHeardRecently, int peerResendTicks) {
        return rules.clientAbortDue(silentTicks, unansweredResends, peerHeardRecently, peerResendTicks);
    }

    /**
     * A packet of this RPC came from the client (it is alive), or a new wait for it begins: the probe budget is
     * whole again and the next probe waits a full first interval from now. Call after the silence changed.
     */
    public void resetProbes() {
        unansweredProbes = 0;
        silenceAtLastProbe = silentTicks;
    }

    /**
     * Whether a server's probe may go now under {@code rules} (capped unless the client proved its address); if
     * so it is counted as sent.
     */
    public boolean takeProbe(SilenceRules rules, int firstAfterTicks, boolean capped) {
        if (silentTicks < silenceAtLastProbe) {
            resetProbes(); // the silence was ended (and restarted) since: a fresh budget
            silenceAtLastProbe = 0;
        }
        if (!rules.probeDue(silentTicks, silenceAtLastProbe, unansweredProbes, firstAfterTicks, capped)) {
            return false;
        }
        unansweredProbes++;
        silenceAtLastProbe = silentTicks;
        return true;
    }

    public int silentTicks() {
        return silentTicks;
    }

    public int unansweredResends() {
        return unansweredResends;
    }
}
