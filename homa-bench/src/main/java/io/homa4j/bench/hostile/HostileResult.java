package io.homa4j.bench.hostile;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.metrics.MetricsSnapshot;

import java.util.Map;

/**
 * What a hostile-peer run measured: the real calls' outcomes, what the attacker sent, the attacked engine's
 * counters (drops by reason, buffered high-water), the largest server RPC count seen (sampled every 10 ms), and
 * the JVM's memory before and at its highest during the attack.
 */
public record HostileResult(long realStarted, long realCompleted, Map<ErrorCode, Long> realFailed,
                            long realMismatched, long realUntyped, long realLost,
                            Map<HostilePeer.Attack, Long> attackPackets, MetricsSnapshot server,
                            int serverRpcsHighWater, long heapBefore, long heapHighWater, long liveHeapHighWater,
                            long directBefore, long directHighWater, long attackBytesOnWire,
                            long datagramsReflected, long bytesReflectedOnWire) {

    public long attackPacketsTotal() {
        return attackPackets.values().stream().mapToLong(Long::longValue).sum();
    }
}
