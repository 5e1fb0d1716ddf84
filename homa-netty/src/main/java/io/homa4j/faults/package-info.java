/**
 * Fault injection between an endpoint and its sockets, for tests and fault runs: {@link io.homa4j.faults.FaultInjector}
 * drops, corrupts, duplicates and delays datagrams at random from one seed; a {@link io.homa4j.faults.DatagramFilter}
 * of one's own picks datagrams by hand.
 *
 * <p>{@link io.homa4j.core.Unstable}: a tool for tests, not application API; it may change or move in any release.
 */
@Unstable("fault injection for tests")
package io.homa4j.faults;

import io.homa4j.core.Unstable;
