package io.homa4j.core.internal.rpc;

/**
 * The rule the engine's open-addressing tables ({@link ClientRpcTable}, {@link ServerRpcTable}, {@link Tombstones})
 * share for removing an entry: backward-shift deletion. The entries after the freed slot in its probe run move up
 * into it, so no deleted markers accumulate and a lookup still ends at the first free slot.
 */
final class LinearProbing {
    private LinearProbing() {
    }

    /**
     * Whether the entry found at slot {@code j}, whose home slot is {@code home}, must stay where it is while slot
     * {@code hole} (before {@code j} in the same probe run, the table wrapping around) is free: its home lies in
     * {@code (hole, j]}, so a lookup for it starts past the hole. Otherwise it moves into the hole.
     */
    static boolean staysBehindHole(int hole, int j, int home) {
        return hole <= j ? home > hole && home <= j : home > hole || home <= j;
    }
}
