package io.homa4j.bench.faults;

import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.faults.Faults;

import java.time.Duration;

/**
 * One fault-injection run: {@code calls} echo RPCs with lengths drawn from {@code workload}, at most
 * {@code maxOutstanding} at a time, from a client whose every datagram (both ways) meets {@code faults} once.
 *
 * @param hangTimeout a run in which no call ends for this long stops; the calls still open are counted as
 *                    unfinished (a hang, which is a bug) and cancelled
 * @param handler     how the server's handler answers (misbehaving handlers)
 */
public record FaultPlan(Faults faults, int calls, Workload workload, int maxOutstanding, long seed, HomaConfig config,
                        Duration hangTimeout, Handler handler) {

    /** How the echo handler answers: always, or with every tenth request mishandled. */
    public enum Handler {
        /** Echoes every request. */
        ECHO,
        /** Never replies to every tenth request: the client's deadline (2 s in this run) must end those calls. */
        NEVER_REPLY,
        /** Replies to every tenth request with a buffer it then releases (a misuse the engine must absorb). */
        RELEASED_REPLY;

        /** The name on the command line: echo, never-reply, released-reply. */
        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** The client's default deadline when the handler may never reply: short, so such calls end within the run. */
    public static final Duration NEVER_REPLY_DEADLINE = Duration.ofSeconds(2);

    public FaultPlan {
        if (calls < 1 || maxOutstanding < 1) {
            throw new IllegalArgumentException("calls and maxOutstanding must be positive");
        }
    }

    /** An echo run. */
    public FaultPlan(Faults faults, int calls, Workload workload, int maxOutstanding, long seed, HomaConfig config,
                     Duration hangTimeout) {
        this(faults, calls, workload, maxOutstanding, seed, config, hangTimeout, Handler.ECHO);
    }

    /** The same run with other faults. */
    public FaultPlan with(Faults other) {
        return new FaultPlan(other, calls, workload, maxOutstanding, seed, config, hangTimeout, handler);
    }
}
