package io.homa4j.core.sim;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

public final class ScratchLossy {
    static void peek(HomaHost h, long ms) {
        try {
            java.lang.reflect.Field f = io.homa4j.core.HomaEngine.class.getDeclaredField("grants");
            f.setAccessible(true);
            Object g = f.get(h.engine());
            java.lang.reflect.Field a = g.getClass().getDeclaredField("active");
            a.setAccessible(true);
            java.lang.reflect.Field gs = g.getClass().getDeclaredField("grantedSet");
            gs.setAccessible(true);
            java.lang.reflect.Field o = g.getClass().getDeclaredField("outstanding");
            o.setAccessible(true);
            java.util.Collection<?> active = (java.util.Collection<?>) a.get(g);
            java.util.Collection<?> granted = (java.util.Collection<?>) gs.get(g);
            StringBuilder sb = new StringBuilder();
            int n = 0;
            for (Object m0 : active) {
                io.homa4j.core.incoming.IncomingMessage m = (io.homa4j.core.incoming.IncomingMessage) m0;
                if (n++ < 12) sb.append(String.format(" [len=%d got=%d granted=%d gs=%s]", m.length(), m.receivedBytes(), m.granted(), granted.contains(m)));
            }
            StringBuilder gsb = new StringBuilder();
            for (Object m0 : granted) {
                io.homa4j.core.incoming.IncomingMessage m = (io.homa4j.core.incoming.IncomingMessage) m0;
                gsb.append(String.format(" [len=%d got=%d granted=%d act=%s]", m.length(), m.receivedBytes(), m.granted(), active.contains(m)));
            }
            System.out.println(ms + "ms outstanding=" + o.get(g) + " active=" + active.size() + " grantedSet=" + granted.size() + "\n  active:" + sb + "\n  grantedSet:" + gsb);
        } catch (ReflectiveOperationException e) { throw new RuntimeException(e); }
    }

    public static void main(String[] args) {
        double loss = Double.parseDouble(args[0]);
        long seed = Long.parseLong(args[1]);
        double dup = Double.parseDouble(args[2]);
        double reorder = Double.parseDouble(args[3]);
        int calls = Integer.parseInt(args[4]);
        try (SimulatedNetwork network = new SimulatedNetwork(SimScenarios.rack(4).lossProbability(loss)
                .duplicateProbability(dup).reorderProbability(reorder).reorderMaxDelayNanos(20_000).seed(seed).build())) {
            HomaConfig config = SimScenarios.engineConfig().build();
            HomaHost[] hosts = HomaHost.attachAll(network, config);
            for (HomaHost h : hosts) {
                h.serve(RequestHandler.echo());
            }
            java.io.PrintWriter out;
            try { out = new java.io.PrintWriter("/tmp/trace.txt"); } catch (Exception e) { throw new RuntimeException(e); }
            long traceId = Long.parseLong(args[5]);
            network.tap(new PacketTap() {
                void log(String what, SimHost from, SimHost to, ByteBuf p, long now) {
                    long id = p.getLong(p.readerIndex() + 4) & ~1L;
                    if (traceId >= 0 && (id != traceId || (from.index() != 0 && to.index() != 0))) return;
                    if (traceId < 0 && (to.index() != 0 && from.index() != 0)) return;
                    int type = p.getByte(p.readerIndex() + 3);
                    String extra = "";
                    if (type == 0x10) extra = " msgLen=" + p.getInt(p.readerIndex() + 12) + " off=" + p.getInt(p.readerIndex() + 16) + " incoming=" + p.getInt(p.readerIndex() + 20) + " flags=" + p.getByte(p.readerIndex() + 28);
                    if (type == 0x11 || type == 0x12) extra = " off=" + p.getInt(p.readerIndex() + 12) + " x=" + p.getInt(p.readerIndex() + 16);
                    out.println(now / 1000 + "us " + what + " " + from.index() + ">" + to.index() + " t=" + Integer.toHexString(type) + " id=" + (p.getLong(p.readerIndex() + 4)) + extra);
                }
                @Override public void delivered(SimHost from, SimHost to, int level, ByteBuf p, long now) { log("dlv", from, to, p, now); }
                @Override public void dropped(SimHost from, SimHost to, int level, ByteBuf p, NetworkDropReason r, long now) { log("DROP", from, to, p, now); }
            });
            SplittableRandom workload = new SplittableRandom(seed);
            List<SimCall> all = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                HomaHost client = hosts[workload.nextInt(4)];
                HomaHost server = hosts[workload.nextInt(4)];
                int kind = workload.nextInt(100);
                int size = kind < 60 ? 1 + workload.nextInt(200) : kind < 85 ? 200 + workload.nextInt(12_000)
                        : 12_000 + workload.nextInt(288_000);
                long payloadSeed = i;
                network.schedule(workload.nextLong(50_000_000L),
                        () -> all.add(client.call(server, Payloads.random(size, payloadSeed))));
            }
            for (long ms : new long[] {26, 31, 40, 60, 100, 140, 145}) {
                network.runUntil(ms * 1_000_000L);
                if (args.length > 6) peek(hosts[0], ms);
            }
            network.runUntil(() -> all.stream().allMatch(SimCall::isDone), 60_000_000_000L);
            long failed = all.stream().filter(c -> !c.echoedRequest()).count();
            System.out.println("failed " + failed + " of " + all.size() + ", now " + network.nowNanos() / 1_000_000 + " ms");
            all.stream().filter(c -> !c.echoedRequest()).limit(5).forEach(System.out::println);
            out.close();
            for (HomaHost h : hosts) {
                var m = h.engine().metrics();
                System.out.println(h + " expired=" + m.serverExpired() + " freedByPeer=" + m.serverFreedByPeer() + " freedByAck=" + m.serverFreedByAck());
            }
        }
    }
}
