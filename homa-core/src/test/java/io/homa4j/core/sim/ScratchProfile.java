package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;

public final class ScratchProfile {
    public static void main(String[] args) {
        int size = Integer.parseInt(args[0]);
        for (int r = 0; r < 3; r++) {
            long t0 = System.nanoTime();
            try (SimulatedNetwork net = new SimulatedNetwork(SimScenarios.rack(2).build())) {
                HomaConfig config = SimScenarios.engineConfig().build();
                HomaHost[] hosts = HomaHost.attachAll(net, config);
                hosts[1].serve(RequestHandler.echo());
                SimCall call = hosts[0].call(hosts[1], Payloads.random(size, 1));
                net.runUntil(call::isDone, 100_000_000_000L);
                System.out.printf("%d B: %s, %.2f s wall, %d packets, %d events%n", size, call.echoedRequest(),
                        (System.nanoTime() - t0) / 1e9, net.packetsDelivered(), net.eventsProcessed());
            }
        }
    }
}
