package io.homa4j.core.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The heap against a sorted-set reference under random schedule, reschedule, cancel and poll. */
class EventQueueTest {

    private static final class Probe extends SimEvent {
        final int id;

        Probe(int id) {
            this.id = id;
        }

        @Override
        void fire(SimulatedNetwork network) {
        }
    }

    @Test
    void firesInTimeThenSchedulingOrderUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(5);
        EventQueue queue = new EventQueue();
        Comparator<Probe> order = Comparator.<Probe>comparingLong(p -> p.timePicos).thenComparingLong(p -> p.sequence);
        TreeSet<Probe> reference = new TreeSet<>(order);
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            probes.add(new Probe(i));
        }
        for (int op = 0; op < 200_000; op++) {
            Probe p = probes.get(random.nextInt(probes.size()));
            int kind = random.nextInt(10);
            if (kind < 5) {
                reference.remove(p);
                queue.schedule(p, random.nextLong(1_000)); // few distinct times: ties are common
                reference.add(p);
            } else if (kind < 7) {
                reference.remove(p);
                queue.cancel(p);
                assertEquals(-1, p.heapIndex);
            } else {
                Probe expected = reference.pollFirst();
                Probe got = (Probe) queue.poll();
                assertEquals(expected == null ? null : expected.id, got == null ? null : got.id, "op " + op);
            }
            assertEquals(reference.size(), queue.size());
        }
        while (!reference.isEmpty()) {
            assertEquals(reference.pollFirst().id, ((Probe) queue.poll()).id);
        }
        assertNull(queue.poll());
    }
}
