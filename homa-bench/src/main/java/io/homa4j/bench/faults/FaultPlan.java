package io.homa4j.bench.faults;

import io.homa4j.bench.workload.Workload;
import io.homa4j.core.HomaConfig;
import io.homa4j.transport.Faults;

import java.time.Duration;

/**
 * One fault-injection run: {@code calls} echo RPCs with lengths drawn from {@code workload}, at most
 * {@code maxOutstanding} at a time, from a client whose every datagram (both ways) meets {@code faults} once.
 *
 * @param hangTimeout a run in which no call ends for this long stops; the calls still open are counted as
 *                    unfinished (a hang, which is a bug) and cancelled
 */
public record FaultPlan(Faults faults, int calls, Workload workload, int maxOutstanding, long seed, HomaConfig config,
                        Duration hangTimeout) {

    public FaultPlan {
        if (calls < 1 || maxOutstanding < 1) {
            throw new IllegalArgumentException("calls and maxOutstanding must be positive");
        }
    }

    /** The same run with other faults. */
    public FaultPlan with(Faults other) {
        return new FaultPlan(other, calls, workload, maxOutstanding, seed, config, hangTimeout);
    }
}
