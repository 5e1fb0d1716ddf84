package io.homa4j.bench.driver;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * Tells when this JVM's JIT compilers have gone quiet: a warm-up that stops on a timer alone leaves a 2-core machine
 * compiling for seconds after it (C2's queue drains slowly while the benchmark's threads keep the cores busy), and
 * what is measured then is partly profiled C1 code. Quiet means the compilers spent less than
 * {@link #QUIET_MILLIS_PER_WINDOW} ms over a whole window of {@link #WINDOW_NANOS}.
 *
 * <p>Not thread-safe: one warm-up loop asks it.
 */
public final class JitQuiet {
    /** How long a window the compilers' time is judged over. */
    public static final long WINDOW_NANOS = 1_000_000_000L;
    /** Compilation time within a window that still counts as quiet (1% of one compiler thread). */
    public static final long QUIET_MILLIS_PER_WINDOW = 10;

    /** For probes without a JIT to watch (a virtual clock in tests): always quiet. */
    public static final LongSupplier NO_JIT = () -> 0;

    private final LongSupplier compiledMillis;
    private final LongSupplier nanoClock;
    private long windowStartNanos;
    private long windowStartMillis;

    /**
     * @param compiledMillis the compilers' total time so far ({@link #thisJvm()}, or {@link #NO_JIT})
     * @param nanoClock      the clock windows are timed on
     */
    public JitQuiet(LongSupplier compiledMillis, LongSupplier nanoClock) {
        this.compiledMillis = compiledMillis;
        this.nanoClock = nanoClock;
        restart();
    }

    /** One round of warm-up work, such as a call. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    /**
     * Runs {@code work} again and again until the compilers have gone quiet or {@code maxNanos} have passed (on
     * {@link System#nanoTime()}); returns how long it ran.
     *
     * @param compiledMillis the compilers' total time so far ({@link #thisJvm()}, or {@link #NO_JIT})
     */
    public static long runUntilQuiet(LongSupplier compiledMillis, long maxNanos, Work work) throws Exception {
        long start = System.nanoTime();
        JitQuiet quiet = new JitQuiet(compiledMillis, System::nanoTime);
        while (!quiet.quiet() && System.nanoTime() - start < maxNanos) {
            work.run();
        }
        return System.nanoTime() - start;
    }

    /**
     * This JVM's total JIT compilation time in ms ({@link CompilationMXBean}); {@link #NO_JIT} when the JVM does
     * not measure it, which makes every window quiet.
     */
    public static LongSupplier thisJvm() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit::getTotalCompilationTime : NO_JIT;
    }

    /** Starts a new window now. */
    private void restart() {
        windowStartNanos = nanoClock.getAsLong();
        windowStartMillis = compiledMillis.getAsLong();
    }

    /**
     * Whether the window that ended just now was quiet; false while the current window is not yet whole. A whole
     * window that was busy starts the next one. Always true with {@link #NO_JIT}.
     */
    public boolean quiet() {
        if (compiledMillis == NO_JIT) {
            return true;
        }
        if (nanoClock.getAsLong() - windowStartNanos < WINDOW_NANOS) {
            return false;
        }
        boolean quiet = compiledMillis.getAsLong() - windowStartMillis < QUIET_MILLIS_PER_WINDOW;
        restart();
        return quiet;
    }
}
