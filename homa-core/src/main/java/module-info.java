/**
 * The Homa protocol engine: pure, single-threaded, driven by the caller's clock ({@link io.homa4j.core.HomaEngine}).
 *
 * <p>API: {@code io.homa4j.core} and {@code io.homa4j.core.metrics}, and {@link io.homa4j.core.wire.PacketType}.
 * Exported but {@link io.homa4j.core.Unstable} (for tests, tools and studies; may change in any release): the
 * simulator {@code io.homa4j.core.sim} and the packet flyweights of {@code io.homa4j.core.wire}. The
 * {@code io.homa4j.core.internal} packages are not exported.
 */
module io.homa4j.core {
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;

    exports io.homa4j.core;
    exports io.homa4j.core.metrics;
    exports io.homa4j.core.wire;
    exports io.homa4j.core.sim;
}
