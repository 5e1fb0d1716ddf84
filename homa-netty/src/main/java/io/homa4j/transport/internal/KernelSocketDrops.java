package io.homa4j.transport.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Datagrams the kernel dropped because a socket's receive buffer was full, for every UDP socket bound to one
 * local port, read from Linux's {@code /proc/net/udp} and {@code /proc/net/udp6} (their last column,
 * {@code drops}). That counter is the one loss a userspace transport on a quiet host can cause itself: it
 * shows whether SO_RCVBUF is large enough for the bursts Homa allows (unscheduled bytes from every sender plus
 * what this receiver granted). Other users of the same port (SO_REUSEPORT) count too.
 *
 * <p>Reads files, so it is for statistics, not for a hot path. Returns -1 where the files do not exist (not Linux).
 */
public final class KernelSocketDrops {
    private static final Path[] TABLES = {Path.of("/proc/net/udp"), Path.of("/proc/net/udp6")};

    private KernelSocketDrops() {
    }

    /** Drops summed over the sockets bound to {@code port}, or -1 when the kernel does not report them. */
    public static long forPort(int port) {
        long total = 0;
        boolean found = false;
        String portHex = String.format(":%04X", port);
        for (Path table : TABLES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(table, StandardCharsets.US_ASCII);
            } catch (IOException | RuntimeException e) {
                continue;
            }
            found = true;
            for (int i = 1; i < lines.size(); i++) {
                String[] fields = lines.get(i).trim().split("\\s+");
                if (fields.length > 2 && fields[1].endsWith(portHex)) {
                    try {
                        total += Long.parseLong(fields[fields.length - 1]);
                    } catch (NumberFormatException ignored) {
                        // a format this code does not know: count nothing for that line
                    }
                }
            }
        }
        return found ? total : -1;
    }
}
