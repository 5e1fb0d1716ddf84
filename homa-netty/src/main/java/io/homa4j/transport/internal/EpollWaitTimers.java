package io.homa4j.transport.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the epoll event loops this library creates keep their next timer deadline in Netty's timerfd rather than
 * pass it as the timeout of every {@code epoll_pwait2}, unless the application chose otherwise.
 *
 * <p>Why: an engine with RPCs in flight always has a timer pending (its 1 ms tick), so every sleep of its loop
 * carried a timeout, and on some virtual machines (guests without halt polling) a sleep with a timeout costs far
 * more than one without, enough to slow a small echo measurably (docs/architecture.md). With Netty's
 * {@code io.netty.channel.epoll.epollWaitThreshold} at 0 the loop sets the timerfd once per new deadline
 * ({@code timerfd_settime}) and sleeps in {@code epoll_wait(-1)}; with Netty's default (10 ms) a deadline under
 * 10 ms is passed to each {@code epoll_pwait2}.
 *
 * <p>Netty reads the property once, when its epoll I/O handler class is first used in the JVM: an application
 * that set the property keeps its choice, and one whose epoll loops existed before the first endpoint built
 * its own keeps Netty's default (set {@code -Dio.netty.channel.epoll.epollWaitThreshold=0} at start-up then).
 * The property is process-wide: the application's other epoll loops get the timerfd too.
 */
final class EpollWaitTimers {
    static final String PROPERTY = "io.netty.channel.epoll.epollWaitThreshold";

    private static final Logger LOG = LoggerFactory.getLogger(EpollWaitTimers.class);

    private EpollWaitTimers() {
    }

    /** Sets the property to 0 unless it is set already; call before the first use of EpollIoHandler. */
    static void preferTimerFd() {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, "0");
            LOG.debug("{}=0: epoll loops keep timer deadlines in their timerfd", PROPERTY);
        }
    }
}
