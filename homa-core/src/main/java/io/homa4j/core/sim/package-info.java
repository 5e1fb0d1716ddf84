/**
 * A deterministic, virtual-time network that runs real {@link io.homa4j.core.HomaEngine}s, in the main jar like
 * Netty's {@code EmbeddedChannel}: tests, what-if studies and the datacenter-scale simulation all use it.
 *
 * <p>{@link io.homa4j.core.Unstable}: a tool for tests and studies, not application API; it may change in any
 * release.
 *
 * <ul>
 *   <li>{@link io.homa4j.core.sim.SimulatedNetwork}: hosts, links, one switch with 8 strict-priority queues per
 *       egress port and finite buffers, random loss/duplication/reordering from one seed, the event loop; with ideal links
 *       ({@link io.homa4j.core.sim.NetworkConfig#UNLIMITED} rate) a fixed-latency wire for engine tests.</li>
 *   <li>{@link io.homa4j.core.sim.NetworkConfig}: its shape, rates, delays, buffers and faults.</li>
 *   <li>{@link io.homa4j.core.PacketDriven}: what runs on a host, the contract a {@link io.homa4j.core.HomaEngine}
 *       fulfils itself; {@link io.homa4j.core.sim.HomaHost} runs engines on a host as the test harness
 *       ({@code serve}, {@code call}, {@code replaceEngine}, crash and restart).</li>
 *   <li>Observation: {@link io.homa4j.core.sim.SwitchPort} queue statistics, per-reason drop counts,
 *       {@link io.homa4j.core.sim.PacketTap} and {@link io.homa4j.core.sim.PacketFilter}.</li>
 * </ul>
 *
 * <p>Everything here is single-threaded: one thread builds, runs and inspects a network. See
 * {@code docs/simulation.md} for the model.
 */
@Unstable("simulator for tests and studies")
package io.homa4j.core.sim;

import io.homa4j.core.Unstable;

