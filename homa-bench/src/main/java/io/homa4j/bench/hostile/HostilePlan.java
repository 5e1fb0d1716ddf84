package io.homa4j.bench.hostile;

import io.homa4j.core.HomaConfig;

/**
 * One hostile-peer run.
 *
 * @param seconds           how long the attack (and the real calls) last
 * @param packetsPerSecond  attack datagrams per second, all kinds together
 * @param ports             source ports the attack comes from
 * @param serverConfig      the attacked endpoint's config: its caps are what is tested
 * @param floodMessageBytes declared length of each flood request
 * @param floodBytes        bytes of each flood request actually sent
 * @param realConcurrency   real echo calls kept in flight meanwhile
 * @param realMaxBytes      real requests are 1..realMaxBytes long
 * @param seed              seeds the attack and the real lengths
 * @param attacks           the kinds sent, in rotation
 */
public record HostilePlan(double seconds, int packetsPerSecond, int ports, HomaConfig serverConfig,
                          int floodMessageBytes, int floodBytes, int realConcurrency, int realMaxBytes, long seed,
                          java.util.List<HostilePeer.Attack> attacks) {
    /** The default mix of attacks ({@link HostilePeer.Attack#MIXED}). */
    public HostilePlan(double seconds, int packetsPerSecond, int ports, HomaConfig serverConfig,
                       int floodMessageBytes, int floodBytes, int realConcurrency, int realMaxBytes, long seed) {
        this(seconds, packetsPerSecond, ports, serverConfig, floodMessageBytes, floodBytes, realConcurrency,
                realMaxBytes, seed, HostilePeer.Attack.MIXED);
    }
}
