package io.homa4j.transport.internal;

import io.homa4j.core.PacketBatch;
import io.homa4j.core.PacketDriven;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs one engine on one event loop, as a duty cycle: the first engine interaction of a loop turn reads the
 * clock, every later one in the same turn reuses that reading, and at the end of the turn the engine is polled
 * when its {@link PacketDriven#nextWakeNanos()} has come, the sink is flushed, the engine finishes the turn
 * ({@link PacketDriven#finishTurn}: bookkeeping put off until its packets left), and a wake-up is scheduled at
 * {@link PacketDriven#wakeByNanos()}, where {@link PacketDriven#poll} runs timers and the pacer. Work that may
 * run late (the engine's tick) is thus done in a turn the loop makes for packets when one comes in time, and a
 * wake-up of its own only when none does: a wake-up costs tens of microseconds of CPU on a VM, and the 1 ms tick
 * alone would wake an otherwise busy loop a thousand times a second. The end of the turn also reads the
 * clock, to tell the engine how long turns lately kept the sockets waiting ({@link LoopLag},
 * {@link PacketDriven#onHostLag}).
 *
 * <p>"End of turn" is Netty's {@code executeAfterEventLoopIteration} on a real event loop, or a plain task on
 * other executors (the embedded loop of socket-free tests).
 *
 * <p>An exception that escapes the engine, its sink or its probes is a bug: it is logged, counted
 * ({@link io.homa4j.transport.TransportStats#engineFailures}) and contained to the turn that raised it, so the loop
 * goes on serving.
 *
 * <p>Threading: event loop only.
 */
public final class EngineDriver {
    private static final Logger LOG = LoggerFactory.getLogger(EngineDriver.class);

    private final EventLoop loop;
    private final LongSupplier clock;
    private final Runnable endOfTurn = this::endOfTurn;
    private final Runnable wake = this::wake;

    private PacketDriven engine;
    private DatagramSink sink;
    /** Reachability probes of newly called servers; null when the endpoint does not probe. */
    private PeerProbes probes;
    /** Fits the engine's pacer to how late this loop's timers fire; null when there is nothing to fit. */
    private PacerFit pacerFit;
    /** Work at the end of each turn, with a deadline of its own; null when there is none. */
    private TurnWork turnWork;
    private boolean closed;

    private boolean turnOpen;
    private long turnNanos;
    private final LoopLag lag = new LoopLag();
    /** When the last turn the engine took part in ended (the clock read at its end). */
    private long lastTurnEndNanos = Long.MIN_VALUE / 2;

    /**
     * Time since the last turn's end from which the loop is taken to have slept in epoll_wait: a loop whose sockets
     * were still readable when the turn ended (level-triggered epoll) is back within a few microseconds (one
     * epoll_wait that returns at once, Netty's dispatch); one that slept needs a thread wake-up, which takes longer.
     */
    static final long SLEPT_NANOS = 5_000;

    /**
     * How much later the wake-up must be due than the one armed before the armed one is moved: a turn that ran
     * the tick early (for packets) moves the next wake by about a tick, and an early wake-up it leaves armed
     * polls for nothing. Smaller moves (the pacer's next packet) are not worth a cancelled task; an event-loop
     * timer fires about 0.2 ms late anyway ({@link PacerTimerSlack}).
     */
    static final long REARM_LATER_NANOS = 100_000;

    private ScheduledFuture<?> wakeTask;
    private long wakeAtNanos = Long.MAX_VALUE;
    private boolean immediateWakeQueued;

    private final TransportCounters counters;

    /** @param clock monotonic nanoseconds, the clock every engine timestamp and deadline uses */
    public EngineDriver(EventLoop loop, LongSupplier clock) {
        this(loop, clock, new TransportCounters());
    }

    /** @param counters where wake-ups, and exceptions that escape the engine, are counted */
    public EngineDriver(EventLoop loop, LongSupplier clock, TransportCounters counters) {
        this.loop = loop;
        this.clock = clock;
        this.counters = counters;
    }

    /** Connects the engine and its sink; before this, arriving packets are dropped. */
    public void attach(PacketDriven engine, DatagramSink sink) {
        attach(engine, sink, null);
    }

    /**
     * Connects the engine, its sink and the probes that find servers with nothing listening (polled on this
     * driver's timer; closed with it).
     */
    public void attach(PacketDriven engine, DatagramSink sink, PeerProbes probes) {
        attach(engine, sink, probes, null);
    }

    /**
     * Connects the engine, its sink, its probes (or null) and the fit of its pacer to this loop's timers (or null):
     * every timer wake-up's lateness goes to {@code pacerFit}, and a changed bound to the engine
     * ({@link PacketDriven#fitPacer}).
     */
    public void attach(PacketDriven engine, DatagramSink sink, PeerProbes probes, PacerFit pacerFit) {
        this.engine = engine;
        this.sink = sink;
        this.probes = probes;
        this.pacerFit = pacerFit;
        sink.deferSocketFlush(true); // every engine call opens a turn, and its end flushes the sockets
    }

    /**
     * Work done at the end of a turn the engine took part in, such as publishing what the engine counted: the loop
     * is woken for it only when no turn comes by its deadline.
     */
    public interface TurnWork {
        /** A turn ended at {@code nowNanos} (the turn's time): do what is due. */
        void turnEnded(long nowNanos);

        /** The latest time the next turn must end by for this work; Long.MAX_VALUE when nothing waits. */
        long dueByNanos();
    }

    /** Runs {@code work} at the end of every turn from now on (one per driver; event loop only). */
    public void afterEachTurn(TurnWork work) {
        if (turnWork != null) {
            throw new IllegalStateException("the driver already has its end-of-turn work");
        }
        turnWork = work;
    }

    /**
     * A call to {@code server} went into the engine: probes the server when it was not heard from lately (see
     * {@link PeerProbes}).
     */
    public void callStarted(InetSocketAddress server) {
        if (probes != null && !closed) {
            try {
                probes.probeIfUnheard(server, now());
            } catch (RuntimeException bug) {
                contained(bug, "probing " + server + " failed");
            }
        }
    }

    public EventLoop loop() {
        return loop;
    }

    /** The engine, or null before {@link #attach}. */
    public PacketDriven engine() {
        return engine;
    }

    /** True once {@link #close} ran. */
    public boolean isClosed() {
        return closed;
    }

    /** The time of this loop turn; the first call in a turn reads the clock and arranges the end-of-turn work. */
    public long now() {
        if (!turnOpen) {
            turnOpen = true;
            turnNanos = clock.getAsLong();
            try {
                if (loop instanceof SingleThreadEventLoop singleThread) {
                    singleThread.executeAfterEventLoopIteration(endOfTurn);
                } else {
                    loop.execute(endOfTurn);
                }
            } catch (RejectedExecutionException loopGone) {
                turnOpen = false; // shutting down from outside the loop: no turn to end, no more wake-ups
            }
        }
        return turnNanos;
    }

    /** Feeds one received datagram payload to the engine; takes ownership of {@code packet}. */
    public void onPacket(InetSocketAddress from, ByteBuf packet) {
        if (engine == null || closed) {
            packet.release();
            return;
        }
        try {
            engine.onPacket(from, packet, now());
        } catch (RuntimeException bug) {
            // The engine promises not to throw on packet contents; keep serving if it does anyway.
            contained(bug, "engine threw from onPacket (packet from " + from + ")");
        }
    }

    /**
     * Feeds the packets of one socket read to the engine (one grant decision and transmit pass for all of them).
     * Ownership: the batch's buffers stay the caller's, to release once this returns, whatever the engine did.
     */
    public void onPackets(PacketBatch batch) {
        if (engine == null || closed) {
            return;
        }
        try {
            engine.onPackets(batch, now());
        } catch (RuntimeException bug) {
            contained(bug, "engine threw from onPackets");
        }
    }

    /**
     * Whether the loop slept since the engine's last turn ended, rather than came straight back to sockets still
     * readable then ({@link #SLEPT_NANOS}); reads the clock. The sockets' read buffers ask it at a wake-up.
     */
    public boolean sleptSinceLastTurn() {
        return clock.getAsLong() - lastTurnEndNanos >= SLEPT_NANOS;
    }

    /** Stops driving: no more polls; later packets are released unread. */
    public void close() {
        closed = true;
        if (wakeTask != null) {
            wakeTask.cancel(false);
            wakeTask = null;
        }
        if (probes != null) {
            probes.close();
        }
    }

    private void endOfTurn() {
        turnOpen = false;
        if (closed || engine == null) {
            return;
        }
        try {
            // One more clock read per turn: how long this turn kept the sockets waiting.
            long endNanos = clock.getAsLong();
            lastTurnEndNanos = endNanos;
            if (lag.turnEnded(turnNanos, endNanos)) {
                engine.onHostLag(lag.lagNanos(), turnNanos);
            }
            if (engine.nextWakeNanos() <= turnNanos) {
                // Due now (the pacer has room, a timer expired): poll in this turn rather than the next, so a
                // loop slowed down by heavy reads still gets one pacer round per turn.
                counters.engineWakes++;
                engine.poll(turnNanos);
            }
            if (probes != null && probes.nextPollNanos() <= turnNanos) {
                probes.poll(turnNanos);
            }
            sink.flushNow();
            engine.finishTurn(turnNanos);
            long wakeBy = engine.wakeByNanos();
            if (probes != null) {
                wakeBy = Math.min(wakeBy, probes.nextPollNanos());
            }
            if (turnWork != null) {
                turnWork.turnEnded(turnNanos);
                wakeBy = Math.min(wakeBy, turnWork.dueByNanos());
            }
            scheduleWake(wakeBy, turnNanos);
            IdleSpin.spinAfterTurn(engine.awaitingPeer(), endNanos, wakeAtNanos);
        } catch (RuntimeException bug) {
            contained(bug, "engine or sink threw at the end of an event-loop turn");
        }
    }

    /** A bug that escaped the engine, its sink or its probes: logged and counted; the loop goes on serving. */
    private void contained(RuntimeException bug, String what) {
        LOG.error(what, bug);
        counters.engineFailures++;
    }

    private void scheduleWake(long at, long now) {
        if (at == Long.MAX_VALUE) {
            if (wakeTask != null) {
                // Nothing is left to watch (the last RPC ended): the wake-up armed for its timer would find nothing
                // to do, and on a quiet endpoint it is a thread wake-up of its own.
                wakeTask.cancel(false);
                wakeTask = null;
                wakeAtNanos = Long.MAX_VALUE;
            }
            return;
        }
        if (at == wakeAtNanos) {
            return; // armed already
        }
        if (at > wakeAtNanos && at - wakeAtNanos < REARM_LATER_NANOS) {
            return; // an earlier wake is armed and will re-arm after polling; moving it costs more than it saves
        }
        if (at <= now) {
            if (!immediateWakeQueued) {
                immediateWakeQueued = true;
                loop.execute(wake);
            }
            return;
        }
        if (wakeTask != null) {
            wakeTask.cancel(false);
        }
        wakeAtNanos = at;
        wakeTask = loop.schedule(wake, at - now, TimeUnit.NANOSECONDS);
    }

    private void wake() {
        // the time the running timer was armed for; MAX_VALUE when this is (or may be) an immediate wake
        long armedFor = wakeTask != null && !immediateWakeQueued ? wakeAtNanos : Long.MAX_VALUE;
        immediateWakeQueued = false;
        wakeTask = null;
        wakeAtNanos = Long.MAX_VALUE;
        if (closed || engine == null) {
            return;
        }
        counters.engineWakes++;
        counters.timerWakes++;
        try {
            if (pacerFit != null && armedFor != Long.MAX_VALUE) {
                // The turn's time may have been read before this task ran (for packets): read the clock itself.
                // A timer never fires early; a wake-up before the armed time is a task an immediate wake
                // superseded (it is not cancelled), and says nothing about this loop's timers.
                long late = clock.getAsLong() - armedFor;
                if (late >= 0 && pacerFit.timerFired(late)) {
                    engine.fitPacer(pacerFit.boundNanos(), pacerFit.wakeLatenessNanos(), now());
                }
            }
            engine.poll(now());
        } catch (RuntimeException bug) {
            contained(bug, "engine threw from poll");
        }
    }
}
