package io.homa4j.bench.cli;

import io.homa4j.bench.driver.DriverConfig;
import io.homa4j.bench.driver.RunStats;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.RunsCsv;
import io.homa4j.bench.transport.BenchServer;
import io.homa4j.bench.transport.Protocol;
import io.homa4j.bench.transport.TransportOptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code compare} on loopback: no link, so the load is offered at {@code --load x --link-mbps}, and Homa paces at
 * what loopback carries ({@code --homa-link-mbps}). Each protocol's run is one echo server and one client, in two
 * child JVMs as on two hosts ({@link Mode#CHILD}) or both in this JVM ({@link Mode#IN_PROCESS}).
 */
final class LoopbackComparison implements Comparison {
    private static final long SERVER_START_TIMEOUT_SECONDS = 30;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final ComparePlan plan;
    private final ComparePlan.LoopbackSetup setup;

    LoopbackComparison(ComparePlan plan) {
        this.plan = plan;
        this.setup = plan.loopback();
    }

    @Override
    public int run(PrintStream out, PrintStream err) throws Exception {
        double perProtocol = 2 + plan.warmupSeconds() + plan.durationSeconds();
        out.println(String.format(Locale.ROOT, "compare: loopback: %s, offered %.0f Mbit/s (%.0f%% of %d), Homa"
                        + " paced at %d Mbit/s, %d repeats x %s s + %s s warm-up per protocol (about %.0f s), mode"
                        + " %s, out %s", plan.workload(), plan.requestMbps(), plan.load() * 100, plan.linkMbps(),
                setup.homaLinkMbps(), plan.repeats(), Converters.number(plan.durationSeconds()),
                Converters.number(plan.warmupSeconds()), perProtocol * plan.protocols().size() * plan.repeats(),
                setup.mode(), plan.outDir()));
        CompareReport report = new CompareReport(plan);
        for (int r = 1; r <= plan.repeats(); r++) {
            ResultSet repeatResults = new ResultSet();
            for (Protocol protocol : plan.order(r)) {
                out.println(String.format(Locale.ROOT, "compare: repeat %d/%d: %s", r, plan.repeats(), protocol));
                out.flush();
                ServerPlan server = server(protocol);
                ClientPlan client = client(protocol, r);
                boolean ok = setup.mode() == CompareCommand.Mode.CHILD ? runChildren(server, client, out, err)
                        : runInProcess(server, client, out, err);
                if (!ok) {
                    err.println("compare: the " + protocol + " run failed; see above");
                    return Cli.FAILED;
                }
                repeatResults.addAll(HistogramsCsv.read(client.out().resolve(HistogramsCsv.FILE_NAME)));
                report.addRuns(r, protocol, RunsCsv.readIfPresent(client.out()).stream()
                        .map(RunsCsv.ClientRun::stats).toList());
            }
            report.addRepeat(repeatResults);
        }
        return report.finish(String.format(Locale.ROOT, "loopback, %.0f Mbit/s offered, Homa paced at %,d Mbit/s",
                plan.requestMbps(), setup.homaLinkMbps()), out);
    }

    /** Homa paces at loopback's rate; the link rate means nothing to TCP. */
    private int linkMbps(Protocol protocol) {
        return protocol.overHoma() ? setup.homaLinkMbps() : plan.linkMbps();
    }

    private TransportOptions transport(Protocol protocol) {
        return new TransportOptions(LOOPBACK, 0, linkMbps(protocol), plan.rttUs(), plan.maxMessage(),
                plan.tcpConnections());
    }

    ServerPlan server(Protocol protocol) {
        return new ServerPlan(protocol, transport(protocol));
    }

    /** The client of repeat {@code repeat}, its servers not yet known. */
    ClientPlan client(Protocol protocol, int repeat) {
        DriverConfig driver = new DriverConfig(plan.workload(), plan.requestMbps(),
                Converters.nanos(plan.warmupSeconds()), Converters.nanos(plan.durationSeconds()),
                plan.maxOutstanding(), ClientOptions.DEFAULT_MAX_WAITING, Converters.nanos(setup.drainSeconds()),
                TimeUnit.MICROSECONDS.toNanos(ClientOptions.DEFAULT_SPIN_US), plan.seed(repeat));
        Path dir = plan.repeatDir(repeat).resolve(protocol.id());
        return new ClientPlan(protocol, List.of(), transport(protocol), driver, dir,
                System.console() != null ? ClientPlan.Progress.CR : ClientPlan.Progress.LINES, null);
    }

    /** Runs server and client in this JVM; false when the run failed. */
    private static boolean runInProcess(ServerPlan serverPlan, ClientPlan clientPlan, PrintStream out,
                                        PrintStream err) throws Exception {
        try (BenchServer server = serverPlan.protocol().startServer(serverPlan.transport())) {
            err.println(server.describe());
            RunStats stats = ClientCommand.execute(clientPlan.withServers(List.of(server.localAddress())), out, err);
            if (!server.statistics().isEmpty()) {
                err.println(server.statistics());
            }
            return ClientCommand.succeeded(stats, err);
        }
    }

    /** Runs a server JVM and a client JVM; false when the run failed (the reason is on {@code err}). */
    private static boolean runChildren(ServerPlan serverPlan, ClientPlan clientPlan, PrintStream out,
                                       PrintStream err) throws Exception {
        Process server = ChildJvm.start(ChildJvm.command(List.of(), "server", serverPlan.argv()));
        Thread serverErr = null;
        try {
            CompletableFuture<InetSocketAddress> ready = new CompletableFuture<>();
            Thread serverOut = new Thread(() -> readServerOutput(server.getInputStream(), ready, err), "server-out");
            serverOut.setDaemon(true);
            serverOut.start();
            serverErr = ChildJvm.forward(server.getErrorStream(), err, "server-err");
            InetSocketAddress address;
            try {
                address = ready.get(SERVER_START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                err.println("compare: the server did not report its address within " + SERVER_START_TIMEOUT_SECONDS
                        + " s");
                return false;
            } catch (ExecutionException e) {
                err.println("compare: the server exited before listening (exit " + server.waitFor() + ")");
                return false;
            }
            Process client = ChildJvm.start(ChildJvm.command(List.of(), "client",
                    clientPlan.withServers(List.of(address)).argv()));
            Thread clientOut = ChildJvm.forward(client.getInputStream(), out, "client-out");
            Thread clientErr = ChildJvm.forward(client.getErrorStream(), err, "client-err");
            int code = client.waitFor();
            clientOut.join(5_000);
            clientErr.join(5_000);
            if (code != 0) {
                err.println("compare: client exited with " + code);
                return false;
            }
            return true;
        } finally {
            int code = ChildJvm.stop(server);
            if (serverErr != null) {
                serverErr.join(5_000);
            }
            if (code != 0) {
                err.println("compare: server exited with " + code);
            }
        }
    }

    /** Completes {@code ready} with the address of the server's ready line; its other lines go to {@code err}. */
    private static void readServerOutput(InputStream in, CompletableFuture<InetSocketAddress> ready,
                                         PrintStream err) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                int at = line.indexOf("listening=");
                if (!ready.isDone() && line.startsWith(ServerCommand.READY_PREFIX) && at > 0) {
                    ready.complete(new Converters.EndpointConverter().convert(
                            line.substring(at + "listening=".length()).trim()));
                } else {
                    err.println(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            ready.completeExceptionally(e);
        } finally {
            ready.completeExceptionally(new IOException("server output ended"));
        }
    }
}
