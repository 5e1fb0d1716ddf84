package io.homa4j.bench.rack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the emulated rack can hold on this machine, checked before anything starts: every host is a JVM with a
 * fixed heap plus its code, threads and buffers ({@link #MEMORY_PER_HOST_BYTES}), and netlab numbers hosts in one
 * /24 with at most {@link #MAX_HOSTS}.
 */
public final class RackLimits {
    /** netlab.sh's own limit. */
    public static final int MAX_HOSTS = 64;
    /** A rack JVM's 128 MB heap, pre-touched, and about as much again for code, threads and direct buffers. */
    public static final long MEMORY_PER_HOST_BYTES = 320L << 20;

    private RackLimits() {
    }

    /** Hosts that fit in {@code availableBytes} of memory, within netlab's limit. */
    public static int hostsThatFit(long availableBytes) {
        return (int) Math.min(MAX_HOSTS, availableBytes / MEMORY_PER_HOST_BYTES);
    }

    /** Null when {@code hosts} fit, else why not, with the limit. */
    public static String hostsRefusal(int hosts, long availableBytes) {
        int fit = hostsThatFit(availableBytes);
        if (hosts <= fit) {
            return null;
        }
        if (hosts > MAX_HOSTS) {
            return String.format(Locale.ROOT, "--hosts %d: the rack holds at most %d hosts", hosts, MAX_HOSTS);
        }
        return String.format(Locale.ROOT, "--hosts %d: each host is a JVM needing about %d MB, and this machine has"
                + " %,d MB available: at most %d hosts fit", hosts, MEMORY_PER_HOST_BYTES >> 20,
                availableBytes >> 20, fit);
    }

    /** MemAvailable from /proc/meminfo, bytes; {@code Long.MAX_VALUE} when it cannot be read. */
    public static long availableMemoryBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or a kernel without the field: no limit known
        }
        return Long.MAX_VALUE;
    }
}
