package io.homa4j.faults;

import io.homa4j.core.Unstable;

/**
 * What a {@link FaultInjector} does to the datagrams of one direction, each fault an independent probability per
 * datagram. Immutable.
 *
 * @param drop          the datagram is lost
 * @param corrupt       one random bit of one random byte is flipped (in a copy: the engine may still hold the
 *                      original bytes for retransmission). Homa4J has no checksum of its own and relies on UDP's,
 *                      so this models corruption that the checksum missed: a flip in a payload byte reaches the
 *                      application as a wrong byte
 * @param duplicate     a second, identical datagram follows the first
 * @param delay         the datagram (and each copy independently) is held back, so later ones overtake it
 * @param maxDelayNanos a held datagram waits a uniform random time in {@code [1, maxDelayNanos]}
 */
@Unstable("fault injection for tests")
public record Faults(double drop, double corrupt, double duplicate, double delay, long maxDelayNanos) {

    /** No faults. */
    public static final Faults NONE = new Faults(0, 0, 0, 0, 0);

    public Faults {
        check(drop, "drop");
        check(corrupt, "corrupt");
        check(duplicate, "duplicate");
        check(delay, "delay");
        if (maxDelayNanos < 0 || (delay > 0 && maxDelayNanos == 0)) {
            throw new IllegalArgumentException("maxDelayNanos must be positive when delay > 0: " + maxDelayNanos);
        }
    }

    public Faults withDrop(double probability) {
        return new Faults(probability, corrupt, duplicate, delay, maxDelayNanos);
    }

    public Faults withCorrupt(double probability) {
        return new Faults(drop, probability, duplicate, delay, maxDelayNanos);
    }

    public Faults withDuplicate(double probability) {
        return new Faults(drop, corrupt, probability, delay, maxDelayNanos);
    }

    public Faults withDelay(double probability, long maxNanos) {
        return new Faults(drop, corrupt, duplicate, probability, maxNanos);
    }

    private static void check(double p, String name) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " probability must be in [0, 1]: " + p);
        }
    }
}
