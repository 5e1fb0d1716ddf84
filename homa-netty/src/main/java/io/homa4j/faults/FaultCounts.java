package io.homa4j.faults;

import io.homa4j.core.Unstable;

/**
 * What a {@link FaultInjector} did to one direction's datagrams so far.
 *
 * @param seen       datagrams offered to the filter
 * @param dropped    of those, lost
 * @param corrupted  altered (one bit flipped)
 * @param duplicated followed by a copy
 * @param delayed    datagrams held back (copies included)
 */
@Unstable("fault injection for tests")
public record FaultCounts(long seen, long dropped, long corrupted, long duplicated, long delayed) {
}
