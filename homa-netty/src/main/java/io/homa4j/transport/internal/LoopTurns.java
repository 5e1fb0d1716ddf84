package io.homa4j.transport.internal;

import io.netty.channel.SelectStrategyFactory;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * The turn count of a busy-polling event loop, which the sockets read on it use to tell a socket that had
 * datagrams left over from its previous read (readable again in the very next turn) from one that received
 * something new after idle turns ({@link ReusedReadBuffer}). Only busy-polling loops count: there every turn
 * polls the sockets without waiting, so "the next turn" is a microsecond later; a loop that sleeps in epoll_wait
 * has no such meaning for it, and its sockets never see a count.
 *
 * <p>Threading: counted and read on the loop's own thread; the count reaches the sockets through a thread-local
 * set in the loop's first turn.
 */
final class LoopTurns {
    private static final FastThreadLocal<LoopTurns> CURRENT = new FastThreadLocal<>();

    private long turn;

    private LoopTurns() {
    }

    /**
     * A select strategy that polls the sockets without waiting in every turn and counts the turns: one count per
     * loop (Netty asks the factory once per loop).
     */
    static SelectStrategyFactory countingBusyPoll() {
        return () -> {
            LoopTurns turns = new LoopTurns();
            return (selectNow, hasTasks) -> {
                turns.turnStarted();
                return selectNow.get();
            };
        };
    }

    /** The count of the busy-polling loop running on this thread, or null on any other thread. */
    static LoopTurns ofThisThread() {
        return CURRENT.getIfExists();
    }

    /** Turns started so far. */
    long turn() {
        return turn;
    }

    private void turnStarted() {
        if (turn++ == 0) {
            CURRENT.set(this);
        }
    }
}
