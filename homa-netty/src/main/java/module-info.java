/**
 * Homa over UDP on a Netty event loop: {@link io.homa4j.HomaEndpoint}, its builder, calls, handlers and observers.
 *
 * <p>API: {@code io.homa4j} and {@code io.homa4j.transport}. Exported but {@link io.homa4j.core.Unstable} (for
 * tests; may change in any release): the fault injection of {@code io.homa4j.faults}. The transport's and the
 * fault injector's {@code internal} packages are not exported.
 */
module io.homa4j.netty {
    requires transitive io.homa4j.core;
    requires transitive io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires org.slf4j;

    exports io.homa4j;
    exports io.homa4j.transport;
    exports io.homa4j.faults;
}
