package io.homa4j.bench.driver;

import io.homa4j.bench.transport.BenchClient;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnloadedProbeTest {
    /**
     * An echo server on a virtual clock: a call of n bytes takes {@link #callNanos} (10 us) + n ns, and the third
     * call of every length (a slow moment of the machine) 1 ms more.
     */
    private static final class FakeEcho implements BenchClient {
        long now;
        final List<Integer> calls = new ArrayList<>();
        final List<Long> startedAt = new ArrayList<>();
        final java.util.Map<Integer, Integer> callsOf = new java.util.HashMap<>();
        int answerDelta;
        /** The fixed part of each call's time. */
        long callNanos = 10_000;

        @Override
        public CompletableFuture<Integer> call(int server, ByteBuf request) {
            int length = request.readableBytes();
            request.release();
            long seen = callsOf.merge(length, 1, Integer::sum) - 1;
            calls.add(length);
            startedAt.add(now);
            now += callNanos + length + (seen == 2 ? 1_000_000 : 0);
            return CompletableFuture.completedFuture(length + answerDelta);
        }

        @Override
        public int servers() {
            return 1;
        }

        @Override
        public String describe() {
            return "fake";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void measuresEveryLengthAfterTheWarmUpAndKeepsTheMedian() throws Exception {
        FakeEcho echo = new FakeEcho();
        UnloadedProbe probe = new UnloadedProbe(echo, 0, () -> echo.now, 1_000_000_000L);
        long[] lengths = {1, 1_000, 200_000};
        RttByLength table = probe.measure(lengths, 5, 50_000);

        int warmupCalls = echo.calls.size() - 15 - 5; // 5 rounds of 3 lengths, and a chaser after each long call
        assertTrue(warmupCalls >= 1, "warm-up calls: " + warmupCalls);
        // the warm-up uses only the short lengths, and the measured rounds go over the whole grid in turn
        assertTrue(echo.calls.subList(0, warmupCalls).stream().allMatch(l -> l <= UnloadedProbe.WARMUP_MAX_BYTES));
        assertEquals(List.of(1, 1_000, 200_000, 1, 1, 1_000), echo.calls.subList(warmupCalls, warmupCalls + 6),
                "each round in turn; after the long call an unmeasured one of the shortest length");
        // the slow third call does not move the median
        assertEquals(10_001, table.rttNanos(1), 1e-9);
        assertEquals(11_000, table.rttNanos(1_000), 1e-9);
        assertEquals(210_000, table.rttNanos(200_000), 1e-9);
    }

    @Test
    void eachMeasuredCallWaitsForTheLinksToSettleAndTheWarmUpDoesNot() throws Exception {
        FakeEcho echo = new FakeEcho();
        List<Integer> callsBeforeEachPause = new ArrayList<>();
        UnloadedProbe probe = new UnloadedProbe(echo, 0, () -> echo.now, 1_000_000_000L, 7_000, nanos -> {
            assertEquals(7_000, nanos);
            callsBeforeEachPause.add(echo.calls.size());
            echo.now += nanos;
        });
        long[] lengths = {1, 1_000};
        RttByLength table = probe.measure(lengths, 3, 50_000);

        int warmupCalls = echo.calls.size() - 6;
        assertEquals(List.of(warmupCalls, warmupCalls + 1, warmupCalls + 2, warmupCalls + 3, warmupCalls + 4,
                warmupCalls + 5), callsBeforeEachPause, "one pause before each measured call, none in the warm-up");
        // the pauses are not part of any RTT
        assertEquals(10_001, table.rttNanos(1), 1e-9);
        assertEquals(11_000, table.rttNanos(1_000), 1e-9);
    }

    @Test
    void settlingTimeIsTwoFullFramesAtTheLinkRate() {
        assertEquals(2 * 1_514 * 8_000L / 25, UnloadedProbe.settleNanos(25));
        assertEquals(2 * 1_514 * 8L / 10, UnloadedProbe.settleNanos(10_000));
        assertThrows(IllegalArgumentException.class, () -> UnloadedProbe.settleNanos(0));
    }

    @Test
    void parkForWaitsAtLeastTheTimeAndStopsWhenInterrupted() throws Exception {
        long start = System.nanoTime();
        UnloadedProbe.parkFor(1_000_000);
        assertTrue(System.nanoTime() - start >= 1_000_000, "returned before the time was up");
        UnloadedProbe.parkFor(0);

        // interrupted, a park returns at once: the wait ends with the exception rather than spinning to the end
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> UnloadedProbe.parkFor(1_000_000_000L));
        assertFalse(Thread.interrupted(), "the interrupt is reported once, by the exception");
    }

    @Test
    void theWarmUpKeepsShortCallsInFlightAndGoesOnWhileTheJitCompilesUpToThreeTimesItsTime() throws Exception {
        long second = 1_000_000_000L;
        long[] lengths = {1, 1_000, 200_000};
        // compiling 100 ms per second for the first 3 s, then quiet: the warm-up ends with the first quiet window
        FakeEcho settling = new FakeEcho();
        settling.callNanos = 1_000_000;
        new UnloadedProbe(settling, 0, () -> settling.now, second, 0, nanos -> { },
                () -> Math.min(settling.now, 3 * second) / 10_000_000).measure(lengths, 1, 2 * second);
        long settledAt = warmUpEnd(settling, lengths.length + 1);
        assertTrue(settledAt >= 3 * second && settledAt < 4 * second + second / 10, "warm-up ended at " + settledAt);

        // compiling throughout: the warm-up stops at three times its time
        FakeEcho compiling = new FakeEcho();
        compiling.callNanos = 1_000_000;
        new UnloadedProbe(compiling, 0, () -> compiling.now, second, 0, nanos -> { },
                () -> compiling.now / 10_000_000).measure(lengths, 1, 2 * second);
        long stoppedAt = warmUpEnd(compiling, lengths.length + 1);
        assertTrue(stoppedAt >= 6 * second && stoppedAt < 6 * second + second / 10, "warm-up ended at " + stoppedAt);

        // a JIT that is quiet from the start: the warm-up takes its time, no more
        FakeEcho quiet = new FakeEcho();
        quiet.callNanos = 1_000_000;
        new UnloadedProbe(quiet, 0, () -> quiet.now, second, 0, nanos -> { }, () -> 0L)
                .measure(lengths, 1, 2 * second);
        long quietAt = warmUpEnd(quiet, lengths.length + 1);
        assertTrue(quietAt >= 2 * second && quietAt < 2 * second + second / 10, "warm-up ended at " + quietAt);

        // most warm-up calls are of the shortest length, WARMUP_IN_FLIGHT at a time, then one of another
        List<Integer> warm = quiet.calls.subList(0, quiet.calls.size() - lengths.length - 1);
        for (int i = 0; i + UnloadedProbe.WARMUP_IN_FLIGHT < warm.size(); i += UnloadedProbe.WARMUP_IN_FLIGHT + 1) {
            assertEquals(java.util.Collections.nCopies(UnloadedProbe.WARMUP_IN_FLIGHT, 1),
                    warm.subList(i, i + UnloadedProbe.WARMUP_IN_FLIGHT));
        }
        assertTrue(warm.contains(1_000), "the other short lengths are warmed up too");
    }

    /** When the first measured call started (the last {@code measured} calls are the measured ones and chasers). */
    private static long warmUpEnd(FakeEcho echo, int measured) {
        return echo.startedAt.get(echo.startedAt.size() - measured);
    }

    @Test
    void aWrongAnswerStopsTheProbe() {
        FakeEcho echo = new FakeEcho();
        echo.answerDelta = 1;
        UnloadedProbe probe = new UnloadedProbe(echo, 0, () -> echo.now, 1_000_000_000L);
        UnloadedProbe.ProbeException e = assertThrows(UnloadedProbe.ProbeException.class,
                () -> probe.measure(new long[] {100}, 1, 0));
        assertTrue(e.getMessage().contains("answered with 101 B"), e.getMessage());
    }

    @Test
    void theGridStepsAtPacketBoundariesAndEndsAtTheLongestMessage() {
        long[] grid = UnloadedProbe.lengths(1_000_000, 1_400);
        assertEquals(1, grid[0]);
        assertEquals(1_000_000, grid[grid.length - 1]);
        for (long boundary : new long[] {1_400, 1_401, 2_800, 2_801, 4_200, 4_201, 5_600}) {
            assertTrue(java.util.Arrays.binarySearch(grid, boundary) >= 0, "missing " + boundary);
        }
        for (int i = 1; i < grid.length; i++) {
            assertTrue(grid[i] > grid[i - 1]);
            assertTrue(grid[i] <= Math.max(grid[i - 1] * UnloadedProbe.GRID_RATIO + 1, 5_600), "gap at " + grid[i]);
        }
        assertArrayEquals(new long[] {1, 100, 500}, UnloadedProbe.lengths(500, 1_400));
    }

    @Test
    void medianOfAnEvenCountIsTheMiddlePairsMean() {
        assertEquals(2.5, UnloadedProbe.median(new long[] {4, 1, 3, 2}));
        assertEquals(3, UnloadedProbe.median(new long[] {5, 3, 1}));
    }
}
