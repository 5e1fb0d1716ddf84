package io.homa4j;

/**
 * Which Netty transport carries an endpoint's UDP traffic.
 *
 * <p>{@link #AUTO} picks {@link #EPOLL} when the native epoll library loads (Linux x86_64) and falls back to
 * {@link #NIO} otherwise; the choice and its reason are logged once per JVM.
 */
public enum TransportType {
    /** Epoll when available, else NIO. */
    AUTO,
    /**
     * Netty's native epoll transport: one socket per priority level sharing the port with SO_REUSEPORT, each with
     * its own IP TOS byte; sendmmsg/recvmmsg batching and UDP GSO where the kernel supports it. Building an
     * endpoint with EPOLL fails with {@code HomaException(UNAVAILABLE)} when epoll cannot load.
     */
    EPOLL,
    /**
     * The JDK's NIO datagram channels. One socket per priority level with SO_REUSEPORT when the JDK offers it on
     * this OS, else a single socket whose TOS byte is that of the highest level (no per-level marking).
     */
    NIO
}
