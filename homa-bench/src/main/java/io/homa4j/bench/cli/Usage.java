package io.homa4j.bench.cli;

/** The usage text printed after a command-line error. */
public final class Usage {
    public static final String TEXT = String.join("\n",
            "usage: java -jar homa-bench.jar <command> [options]",
            "  server   --protocol homa|tcp --port P [--bind ADDR] [--link-mbps N] [--rtt-us N] [--max-message B]",
            "           echo server until SIGTERM/SIGINT",
            "  client   --protocol homa|tcp --servers host:port,... --workload w1..w5|SIZE --load-mbps M",
            "           --duration S --max-message B --out DIR [--bind ADDR] [--link-mbps N] [--rtt-us N]",
            "           [--max-outstanding 200] [--max-waiting N] [--seed S] [--warmup S] [--drain S]",
            "           [--tcp-connections 32] [--progress auto|cr|lines|none]",
            "           open-loop Poisson client; writes DIR/results.csv and DIR/histograms.csv",
            "  node     --port P [--start-file F] and the client's options",
            "           one host of an all-to-all run: echo server and client in one JVM (Homa: one endpoint);",
            "           the client starts once F exists, the server answers until SIGTERM/SIGINT",
            "  merge    --in DIR1,DIR2,... --out DIR [--title T]",
            "           merges the runs' histograms.csv into DIR/results.csv, DIR/histograms.csv, DIR/rtt.svg",
            "           (title: workload, load, date, commit from the runs' runs.csv, which also tell OVERLOADED)",
            "  compare  [--where auto|rack|loopback] [--repeats 3] [--workload w4] [--load L] [--link-mbps N]",
            "           [--duration S] [--warmup S] [--max-message 1000000] [--out results/compare]",
            "           [--protocols homa,tcp] [--seed S] [--max-outstanding 200] [--tcp-connections 32] [--rtt-us N]",
            "           rack only: [--hosts 4] [--prefix homa-...]; loopback only: [--mode child|in-process]",
            "           [--homa-link-mbps " + CompareCommand.LOOPBACK_HOMA_PACE_MBPS + "] [--drain S]",
            "           Homa vs TCP in repeats, in the emulated rack when this process can build it (root, ip, tc),",
            "           else on loopback; rack defaults: --link-mbps " + CompareCommand.RACK_LINK_MBPS + " --load "
                    + CompareCommand.RACK_LOAD + "; loopback: --link-mbps " + CompareCommand.DEFAULT_LINK_MBPS
                    + " --load " + CompareCommand.LOOPBACK_LOAD + ";",
            "           --duration defaults to enough for " + CompareCommand.LARGEST_BUCKET_CALLS
                    + " calls in the largest bucket; writes DIR/results.csv,",
            "           DIR/rtt.svg, DIR/runs.csv and prints the table",
            io.homa4j.bench.simulate.SimulateCommand.USAGE,
            SoakCommand.USAGE,
            HostileCommand.USAGE,
            FaultsCommand.USAGE,
            "  jmh      [JMH options]   runs the JMH benchmarks (RttBenchmark, MixedLoadBenchmark); -h lists options");

    private Usage() {
    }
}
