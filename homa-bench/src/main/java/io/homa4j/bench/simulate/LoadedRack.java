package io.homa4j.bench.simulate;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.sim.SimulatedNetwork;
import io.homa4j.core.sim.SwitchPort;
import io.homa4j.core.wire.DataHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;

/**
 * The rack of a plan, built and loaded: one {@link RackNode} per host on a {@link SimulatedNetwork}, each
 * generating its Poisson arrivals from its own seed (split from the plan's seed in host order). Used by
 * {@link RackSimulation} and by the JMH throughput benchmark, which advances it slice by slice.
 *
 * <p>Owns the network and the shared payload; {@link #close()} releases both. Single-threaded.
 */
public final class LoadedRack implements AutoCloseable {
    private final SimulationPlan plan;
    private final SimulatedNetwork network;
    private final RackNode[] nodes;
    private final ByteBuf payload;
    private final double requestsPerSecondPerHost;

    LoadedRack(SimulationPlan plan, CallObserver observer, long stopArrivalsNanos) {
        this(plan, observer, stopArrivalsNanos, false);
    }

    /**
     * @param realPayloads whether requests and message buffers hold their bytes (tests: the results must not
     *                     depend on it; see {@link LengthOnlyBuffer})
     */
    LoadedRack(SimulationPlan plan, CallObserver observer, long stopArrivalsNanos, boolean realPayloads) {
        this.plan = plan;
        HomaConfig config = plan.homaConfig();
        int hosts = plan.rack().hosts();
        int perPacket = DataHeader.maxPayload(config.maxUdpPayload());
        this.requestsPerSecondPerHost = plan.load() * plan.rack().linkBitsPerSecond()
                / (2 * 8 * plan.basis().bytesPerMessage(plan.workload(), perPacket));
        this.payload = SharedPayload.allocate(plan.maxMessage(), realPayloads);
        this.network = new SimulatedNetwork(plan.rack().networkConfig(plan.seed()));
        this.nodes = new RackNode[hosts];
        ByteBufAllocator buffers = RackNode.rackBuffers(realPayloads);
        for (int i = 0; i < hosts; i++) {
            nodes[i] = new RackNode(network.host(i), config, payload, observer, buffers);
        }
        SplittableRandom seeds = new SplittableRandom(plan.seed());
        for (int i = 0; i < hosts; i++) {
            InetSocketAddress[] others = new InetSocketAddress[hosts - 1];
            for (int j = 0, k = 0; j < hosts; j++) {
                if (j != i) {
                    others[k++] = network.host(j).address();
                }
            }
            nodes[i].generate(plan.workload(), requestsPerSecondPerHost, others, plan.maxOutstanding(),
                    seeds.nextLong());
            nodes[i].stopArrivalsAt(stopArrivalsNanos);
        }
    }

    /** A rack generating load for ever, recording nothing: what the throughput benchmark drives. */
    public static LoadedRack unobserved(SimulationPlan plan) {
        return new LoadedRack(plan, new CallObserver() {
            @Override
            public void completed(int length, long intendedNanos, long endNanos) {
            }

            @Override
            public void failed(int length, long intendedNanos, io.homa4j.core.RpcFailure failure, long nowNanos) {
            }
        }, Long.MAX_VALUE);
    }

    public SimulationPlan plan() { return plan; }

    public SimulatedNetwork network() { return network; }

    RackNode[] nodes() { return nodes; }

    public double requestsPerSecondPerHost() { return requestsPerSecondPerHost; }

    /** Runs {@code nanos} more of virtual time; returns the packets the hosts sent meanwhile. */
    public long advance(long nanos) {
        long before = network.packetsSent();
        network.runFor(nanos);
        return network.packetsSent() - before;
    }

    /** Wire bytes all switch ports have sent down their links so far. */
    long downlinkBytes() {
        long sum = 0;
        for (int i = 0; i < network.hostCount(); i++) {
            SwitchPort port = network.host(i).port();
            sum += port.bytesTransmitted();
        }
        return sum;
    }

    @Override
    public void close() {
        network.close();
        payload.release();
    }
}
