package io.homa4j.bench.cli;

import io.homa4j.bench.faults.FaultPlan;
import picocli.CommandLine.Option;

/** {@code --handler}: the echo server mishandles every tenth request this way. */
final class HandlerOption {
    @Option(names = "--handler", paramLabel = "echo|never-reply|released-reply",
            description = "how every tenth request is mishandled (default echo: none is)")
    FaultPlan.Handler handler = FaultPlan.Handler.ECHO;
}
