package io.homa4j.core.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue's contract beyond random operations: ties, growth, an event that reschedules itself right after it was
 * polled, and the network's usage pattern (poll, then reschedule the fired event and schedule others) against a
 * {@link PriorityQueue} reference.
 */
class EventQueueOrderTest {

    private static final class Probe extends SimEvent {
        final int id;
        /** Reference key, copied when scheduled (the reference queue must not see later changes). */
        long refTime;
        long refSequence;

        Probe(int id) {
            this.id = id;
        }

        @Override
        void fire(SimulatedNetwork network) {
        }
    }

    private static final Comparator<Probe> ORDER =
            Comparator.<Probe>comparingLong(p -> p.refTime).thenComparingLong(p -> p.refSequence);

    @Test
    void simultaneousEventsFireInSchedulingOrderEvenWhenMoved() {
        EventQueue queue = new EventQueue();
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Probe p = new Probe(i);
            probes.add(p);
            queue.schedule(p, 1_000);
        }
        queue.schedule(probes.get(3), 2_000);
        queue.schedule(probes.get(3), 1_000); // moved back: now the last of the ten scheduled at 1,000
        queue.schedule(probes.get(0), 1_000); // rescheduled at the same time: also goes behind the others
        int[] expected = {1, 2, 4, 5, 6, 7, 8, 9, 3, 0};
        for (int id : expected) {
            assertEquals(1_000, queue.peekTimePicos());
            assertEquals(id, ((Probe) queue.poll()).id);
        }
        assertTrue(queue.isEmpty());
        assertNull(queue.poll());
    }

    @Test
    void polledEventThatReschedulesItselfKeepsItsPlaceInTheOrder() {
        EventQueue queue = new EventQueue();
        Probe a = new Probe(0);
        Probe b = new Probe(1);
        queue.schedule(a, 10);
        queue.schedule(b, 20);
        assertSame(a, queue.poll());
        assertFalse(a.isScheduled());
        assertEquals(1, queue.size());
        queue.schedule(a, 20); // same time as b, scheduled later: after b
        assertTrue(a.isScheduled());
        assertEquals(2, queue.size());
        assertSame(b, queue.poll());
        assertSame(a, queue.poll());
        assertNull(queue.poll());

        queue.schedule(a, 5);
        queue.schedule(b, 7);
        assertSame(a, queue.poll());
        queue.schedule(b, 3); // another event moves first; the polled one is not rescheduled
        assertEquals(3, queue.peekTimePicos());
        assertSame(b, queue.poll());
        queue.schedule(a, 4); // scheduled again after another event moved
        assertSame(a, queue.poll());
        assertTrue(queue.isEmpty());
    }

    @Test
    void cancelledEventNeverFiresAndAnEventAtTheEndOfTimeStillDoes() {
        EventQueue queue = new EventQueue();
        Probe late = new Probe(0);
        Probe gone = new Probe(1);
        queue.schedule(late, Long.MAX_VALUE);
        queue.schedule(gone, 1);
        queue.cancel(gone);
        queue.cancel(gone); // twice is harmless
        assertEquals(-1, gone.heapIndex);
        assertEquals(1, queue.size());
        assertEquals(Long.MAX_VALUE, queue.peekTimePicos());
        assertSame(late, queue.poll());
        assertNull(queue.poll());
    }

    @Test
    void growsPastItsInitialSlotsWithoutLosingOrder() {
        EventQueue queue = new EventQueue();
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            Probe p = new Probe(i);
            probes.add(p);
            queue.schedule(p, (i * 7_919L) % 1_000); // a permutation of 0..999
        }
        assertEquals(1_000, queue.size());
        long last = -1;
        for (int i = 0; i < 1_000; i++) {
            Probe p = (Probe) queue.poll();
            assertEquals(last + 1, p.timePicos);
            last = p.timePicos;
        }
        assertNull(queue.poll());
    }

    /**
     * What the network does: poll the earliest event, usually reschedule it (a pipe's next packet), schedule or
     * move a few others (sends, wake-ups), sometimes cancel one. Times never go before the polled event's.
     */
    @Test
    void matchesAPriorityQueueUnderTheNetworksPattern() {
        for (long seed = 1; seed <= 4; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            EventQueue queue = new EventQueue();
            PriorityQueue<Probe> reference = new PriorityQueue<>(ORDER);
            List<Probe> probes = new ArrayList<>();
            int population = seed == 1 ? 40 : 300; // 300 makes the queue grow while events are pending
            for (int i = 0; i < population; i++) {
                probes.add(new Probe(i));
            }
            long sequence = 0;
            long now = 0;
            for (Probe p : probes) {
                sequence = schedule(queue, reference, p, random.nextLong(50), sequence);
            }
            for (int step = 0; step < 200_000; step++) {
                Probe expected = reference.poll();
                Probe got = (Probe) queue.poll();
                assertSame(expected, got, "seed " + seed + " step " + step);
                if (got == null) {
                    break;
                }
                now = got.timePicos;
                if (random.nextInt(4) != 0) {
                    sequence = schedule(queue, reference, got, now + random.nextLong(30), sequence);
                }
                for (int k = random.nextInt(3); k > 0; k--) {
                    Probe other = probes.get(random.nextInt(probes.size()));
                    if (random.nextInt(5) == 0) {
                        reference.remove(other);
                        queue.cancel(other);
                    } else {
                        sequence = schedule(queue, reference, other, now + random.nextLong(30), sequence);
                    }
                }
                assertEquals(reference.size(), queue.size());
            }
        }
    }

    /**
     * Links and ports fire in place ({@link SimEvent#firesInPlace}): left first in the queue while they fire, they
     * move themselves to their next time or cancel themselves, before or after other events are scheduled or moved.
     * The order must be the one of taking them out first and scheduling them again, which the reference does.
     */
    @Test
    void anEventFiringInPlaceKeepsTheOrderOfPollingItAndSchedulingItAgain() {
        for (long seed = 11; seed <= 13; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            EventQueue queue = new EventQueue();
            PriorityQueue<Probe> reference = new PriorityQueue<>(ORDER);
            List<Probe> probes = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                probes.add(new Probe(i));
            }
            long sequence = 0;
            for (Probe p : probes) {
                sequence = schedule(queue, reference, p, random.nextLong(50), sequence);
            }
            for (int step = 0; step < 200_000 && !reference.isEmpty(); step++) {
                Probe expected = reference.poll();
                Probe got = (Probe) queue.first();
                assertSame(expected, got, "seed " + seed + " step " + step);
                long now = got.timePicos;
                boolean inPlace = random.nextBoolean();
                if (!inPlace) {
                    assertSame(got, queue.poll());
                }
                boolean selfFirst = random.nextBoolean();
                if (selfFirst) {
                    sequence = resolve(queue, reference, got, inPlace, random, now, sequence);
                }
                for (int k = random.nextInt(3); k > 0; k--) {
                    Probe other = probes.get(random.nextInt(probes.size()));
                    if (other == got) {
                        continue;
                    }
                    if (random.nextInt(5) == 0) {
                        reference.remove(other);
                        queue.cancel(other);
                    } else {
                        sequence = schedule(queue, reference, other, now + random.nextLong(30), sequence);
                    }
                }
                if (!selfFirst) {
                    sequence = resolve(queue, reference, got, inPlace, random, now, sequence);
                }
                assertEquals(reference.size(), queue.size());
            }
        }
    }

    /**
     * The queue keeps near events in a ring of buckets and the rest in a heap: with delays from picoseconds (ties,
     * one bucket) through the ring's horizon to far beyond it, events move between the two, events in the heap
     * come due before ring events, and the ring's start moves and wraps; the order stays the reference's. The
     * events fire in place or are polled, as in the network.
     */
    @Test
    void matchesAPriorityQueueAcrossTheRingAndTheHeap() {
        for (long seed = 21; seed <= 24; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            EventQueue queue = new EventQueue();
            PriorityQueue<Probe> reference = new PriorityQueue<>(ORDER);
            List<Probe> probes = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                probes.add(new Probe(i));
            }
            long sequence = 0;
            for (Probe p : probes) {
                sequence = schedule(queue, reference, p, delay(random), sequence);
            }
            for (int step = 0; step < 300_000 && !reference.isEmpty(); step++) {
                Probe expected = reference.poll();
                Probe got = (Probe) queue.first();
                assertSame(expected, got, "seed " + seed + " step " + step);
                assertEquals(expected.refTime, queue.peekTimePicos());
                long now = got.timePicos;
                boolean inPlace = random.nextBoolean();
                if (!inPlace) {
                    assertSame(got, queue.poll());
                }
                if (random.nextInt(8) != 0) {
                    sequence = schedule(queue, reference, got, now + delay(random), sequence);
                } else if (inPlace) {
                    queue.cancel(got);
                }
                for (int k = random.nextInt(3); k > 0; k--) {
                    Probe other = probes.get(random.nextInt(probes.size()));
                    if (other == got) {
                        continue;
                    }
                    if (random.nextInt(6) == 0) {
                        reference.remove(other);
                        queue.cancel(other);
                        assertFalse(other.isScheduled());
                    } else {
                        sequence = schedule(queue, reference, other, now + delay(random), sequence);
                    }
                }
                assertEquals(reference.size(), queue.size());
            }
        }
    }

    /** Ties and neighbours in one bucket, a packet's time, a pacer's queue, past the ring, a timer tick. */
    private static long delay(SplittableRandom random) {
        int kind = random.nextInt(20);
        if (kind < 3) {
            return random.nextLong(3);
        }
        if (kind < 12) {
            return random.nextLong(200_000);
        }
        if (kind < 17) {
            return random.nextLong(2 * EventQueue.NEAR_HORIZON_PICOS);
        }
        return 1_000_000_000L + random.nextLong(EventQueue.NEAR_HORIZON_PICOS);
    }

    /** The fired event's own step: scheduled again (3 in 4) or, if it fired in place, taken out. */
    private static long resolve(EventQueue queue, PriorityQueue<Probe> reference, Probe got, boolean inPlace,
                                SplittableRandom random, long now, long sequence) {
        if (random.nextInt(4) != 0) {
            return schedule(queue, reference, got, now + random.nextLong(30), sequence);
        }
        if (inPlace) {
            queue.cancel(got);
        }
        return sequence;
    }

    private static long schedule(EventQueue queue, PriorityQueue<Probe> reference, Probe p, long time,
                                 long sequence) {
        reference.remove(p);
        queue.schedule(p, time);
        p.refTime = time;
        p.refSequence = sequence;
        reference.add(p);
        return sequence + 1;
    }
}
