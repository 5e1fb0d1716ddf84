package io.homa4j.bench.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Counts the system calls some of this JVM's threads make between {@link #start} and {@link #stop}, with
 * {@code perf record -e raw_syscalls:sys_enter -a} (every syscall entry on the machine, with the thread that made
 * it) and {@code perf script -F tid}. It counts every syscall, blocking or not ({@code epoll_wait},
 * {@code recvmmsg}, {@code sendto}, eventfd reads and writes, futex, {@code clock_nanosleep}...).
 *
 * <p>Why system-wide: in containers that refuse to attach counters to a running thread ({@code perf stat -t} then
 * reports "not counted"), a system-wide recording still works; the threads are picked out of it afterwards.
 * Costs: the recording itself takes CPU on the machine while it runs (a few percent at tens of thousands of
 * syscalls a second), and other processes' syscalls are recorded too, then ignored.
 *
 * <p>Optional: enabled with {@code -Dhoma4j.bench.perf=true} on the fork ({@code -jvmArgsAppend}); without it, or
 * when {@code perf} cannot record, counts are unknown ({@code -1}).
 */
final class SyscallCounter {
    static final String ENABLE_PROPERTY = "homa4j.bench.perf";
    /** Time for perf to set up its ring buffers before the measured calls start. */
    private static final long START_MILLIS = 700;

    private Process recording;
    private Path output;

    static boolean enabled() {
        return Boolean.getBoolean(ENABLE_PROPERTY);
    }

    /** Starts recording; returns false (and records nothing) when perf is not available. */
    boolean start() {
        if (!enabled()) {
            return false;
        }
        try {
            output = Files.createTempFile("homa4j-syscalls", ".data");
            recording = new ProcessBuilder("perf", "record", "-q", "-e", "raw_syscalls:sys_enter", "-a", "-o",
                    output.toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            Thread.sleep(START_MILLIS);
            if (!recording.isAlive()) {
                recording = null;
                return false;
            }
            return true;
        } catch (IOException e) {
            recording = null;
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            recording.destroyForcibly();
            recording = null;
            return false;
        }
    }

    /**
     * Stops recording (perf writes its file on SIGINT) and returns the syscalls made by each of {@code threads}'
     * groups: {@code groups[i]} is a set of thread ids; the answer's element {@code i} is their total, or -1 when
     * nothing was recorded.
     */
    long[] stop(Set<Integer>[] groups) {
        long[] counts = new long[groups.length];
        java.util.Arrays.fill(counts, -1);
        if (recording == null) {
            return counts;
        }
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(recording.pid())).start().waitFor();
            if (!recording.waitFor(10, TimeUnit.SECONDS)) {
                recording.destroyForcibly();
                return counts;
            }
            Map<Integer, Long> byThread = new HashMap<>();
            Process script = new ProcessBuilder("perf", "script", "-i", output.toString(), "-F", "tid")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(script.getInputStream(), StandardCharsets.US_ASCII))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    String tid = line.trim();
                    if (!tid.isEmpty()) {
                        byThread.merge(Integer.parseInt(tid), 1L, Long::sum);
                    }
                }
            }
            script.waitFor(30, TimeUnit.SECONDS);
            for (int i = 0; i < groups.length; i++) {
                long sum = 0;
                for (int tid : groups[i]) {
                    sum += byThread.getOrDefault(tid, 0L);
                }
                counts[i] = sum;
            }
            return counts;
        } catch (IOException | NumberFormatException e) {
            return counts;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return counts;
        } finally {
            recording = null;
            try {
                Files.deleteIfExists(output);
            } catch (IOException ignored) {
                // a temporary file left behind is harmless
            }
        }
    }
}
