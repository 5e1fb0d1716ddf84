package io.homa4j.bench.cli;

/**
 * SIGTERM and SIGINT as a callback, so the server closes its endpoint and exits 0 (a plain JVM exits 143 on
 * SIGTERM). Uses {@code sun.misc.Signal} (module jdk.unsupported). A signal the JVM may not take over (SIGINT is
 * ignored in background jobs of a non-interactive shell) is left alone; if neither can be taken, a shutdown hook
 * runs the callback instead.
 *
 * <p>Kept when the command line moved to picocli, which handles no signals. The only public JDK alternative, a
 * shutdown hook, cannot end the process with exit code 0, and {@code netlab/compare.sh} and
 * {@code netlab/two-hosts.sh} treat a server or node that does not exit 0 after SIGTERM as failed; a library for
 * signals (JNR, JLine) would wrap this same class.
 */
final class Signals {
    private Signals() {
    }

    static void onTerminate(Runnable action) {
        int handled = 0;
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> action.run());
                handled++;
            } catch (Throwable unavailable) {
                // this signal stays with the JVM's default handling
            }
        }
        if (handled == 0) {
            Runtime.getRuntime().addShutdownHook(new Thread(action, "homa-bench-stop"));
        }
    }
}
