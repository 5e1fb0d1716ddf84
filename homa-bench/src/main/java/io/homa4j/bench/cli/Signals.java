package io.homa4j.bench.cli;

/**
 * SIGTERM and SIGINT as a callback, so the server closes its endpoint and exits 0 (a plain JVM exits 143 on
 * SIGTERM). Uses {@code sun.misc.Signal} (module jdk.unsupported), falling back to a shutdown hook.
 */
final class Signals {
    private Signals() {
    }

    @SuppressWarnings("removal")
    static void onTerminate(Runnable action) {
        try {
            for (String name : new String[] {"TERM", "INT"}) {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> action.run());
            }
        } catch (Throwable unavailable) {
            Runtime.getRuntime().addShutdownHook(new Thread(action, "homa-bench-stop"));
        }
    }
}
