package io.homa4j.grpc;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** What the channel and server builders both check and make: their limits, their threads, wildcard addresses. */
final class BuilderSupport {
    private BuilderSupport() {
    }

    /** {@code bytes}, when positive, for the limit {@code name}; else IllegalArgumentException. */
    static int positiveLimit(String name, int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + bytes);
        }
        return bytes;
    }

    /** Daemon threads named "homa-grpc-ROLE-N": a channel's or server's own pools never keep the JVM alive. */
    static ThreadFactory daemonThreads(String role) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, "homa-grpc-" + role + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The wildcard address of IPv6 or IPv4. */
    static InetAddress wildcard(boolean ipv6) {
        try {
            return InetAddress.getByAddress(new byte[ipv6 ? 16 : 4]);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
