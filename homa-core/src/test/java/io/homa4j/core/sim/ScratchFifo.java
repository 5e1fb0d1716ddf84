package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

public final class ScratchFifo {
    public static void main(String[] args) {
        long interval = Long.parseLong(args[0]);
        double fifo = Double.parseDouble(args[1]);
        long streamNanos = 60_000_000L;
        try (SimulatedNetwork network = new SimulatedNetwork(SimScenarios.rack(6).build())) {
            HomaConfig config = SimScenarios.engineConfig().fifoGrantFraction(fifo).build();
            HomaHost[] hosts = HomaHost.attachAll(network, config);
            HomaHost receiver = hosts[0];
            receiver.serve(SimScenarios.crcReply());
            long[] bytesByLevel = new long[8];
            long[] longBytes = {0};
            network.tap(new PacketTap() {
                @Override
                public void delivered(SimHost from, SimHost to, int level, ByteBuf packet, long nowNanos) {
                    if (from.index() == 5 && to.index() == 0) {
                        bytesByLevel[level] += packet.readableBytes();
                        longBytes[0] += packet.readableBytes();
                    }
                }
            });
            SimCall longCall = hosts[5].call(receiver, Payloads.random(1_000_000, 77));
            List<SimCall> shorts = new ArrayList<>();
            for (int s = 1; s <= 4; s++) {
                HomaHost sender = hosts[s];
                for (long t = s * 7_000L; t < streamNanos; t += interval) {
                    long seed = t + s;
                    network.schedule(t, () -> shorts.add(sender.call(receiver, Payloads.random(20_000, seed))));
                }
            }
            for (int ms = 5; ms <= 60; ms += 5) {
                network.runUntil(ms * 1_000_000L);
                long pending = shorts.stream().filter(c -> !c.isDone()).count();
                System.out.printf("t=%d ms long bytes in %d, done=%s, shorts %d pending %d, port max %d%n", ms,
                        longBytes[0], longCall.isDone(), shorts.size(), pending,
                        receiver.host().port().maxQueueBytes());
            }
            System.out.println("levels of the long's packets: " + java.util.Arrays.toString(bytesByLevel));
            System.out.println(receiver.engine().metrics());
        }
    }
}
