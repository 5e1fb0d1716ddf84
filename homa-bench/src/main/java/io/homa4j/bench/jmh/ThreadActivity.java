package io.homa4j.bench.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What the kernel counts for a set of this JVM's threads, read from {@code /proc/self/task/<tid>/}, so a
 * benchmark can say what one call cost in scheduling besides its time:
 * <ul>
 *   <li>{@code voluntary_ctxt_switches} ({@code status}): times a thread gave up the CPU because it blocked (in
 *       {@code epoll_wait}, a futex, a sleep). For a thread that sleeps between calls, each is one wake-up.</li>
 *   <li>{@code nonvoluntary_ctxt_switches} ({@code status}): times the scheduler took the CPU away from a runnable
 *       thread (preempted by another thread, on a shared machine often another process).</li>
 * </ul>
 * What these miss: system calls that return without blocking ({@code epoll_wait} with sockets already readable,
 * {@code sendmsg}, a non-blocking read); those are counted by {@link SyscallCounter} when {@code perf} is there.
 * Neither counts interrupts or softirq work the kernel does on the thread's behalf (the loopback receive path).
 */
final class ThreadActivity {
    private static final Path TASKS = Path.of("/proc/self/task");

    private ThreadActivity() {
    }

    /** The ids of this JVM's threads now (empty where there is no {@code /proc}). */
    static Set<Integer> threadIds() {
        Set<Integer> ids = new TreeSet<>();
        if (!Files.isDirectory(TASKS)) {
            return ids;
        }
        try (Stream<Path> tasks = Files.list(TASKS)) {
            tasks.forEach(p -> ids.add(Integer.parseInt(p.getFileName().toString())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + TASKS, e);
        }
        return ids;
    }

    /** The threads started by {@code start}: those there after it returned and not before. */
    static Set<Integer> startedBy(Runnable start) {
        Set<Integer> before = threadIds();
        start.run();
        Set<Integer> after = threadIds();
        after.removeAll(before);
        return after;
    }

    /** The id of the calling thread (-1 where there is no {@code /proc}). */
    static int currentThreadId() {
        try {
            // "/proc/thread-self" links to "<pid>/task/<tid>".
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException | UnsupportedOperationException e) {
            return -1;
        }
    }

    /**
     * Voluntary and involuntary context switches summed over {@code threads}; a thread that has ended counts
     * nothing.
     */
    static Switches switches(Set<Integer> threads) {
        long voluntary = 0;
        long involuntary = 0;
        for (int tid : threads) {
            List<String> status;
            try {
                status = Files.readAllLines(TASKS.resolve(tid + "/status"));
            } catch (IOException ended) {
                continue;
            }
            for (String line : status) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    voluntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    involuntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        return new Switches(voluntary, involuntary);
    }

    /** Context switch counts of some threads at one moment. */
    record Switches(long voluntary, long involuntary) {
        Switches minus(Switches earlier) {
            return new Switches(voluntary - earlier.voluntary, involuntary - earlier.involuntary);
        }

        Switches plus(Switches other) {
            return new Switches(voluntary + other.voluntary, involuntary + other.involuntary);
        }
    }
}
