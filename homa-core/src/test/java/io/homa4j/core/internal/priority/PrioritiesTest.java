package io.homa4j.core.internal.priority;

import io.homa4j.core.HomaConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PrioritiesTest {

    @Test
    void defaultCutoffsMatchTheModule() {
        UnscheduledCutoffs c = UnscheduledCutoffs.fromConfig(HomaConfig.defaults(), 1);
        assertEquals(7, c.levelFor(1, 8));
        assertEquals(7, c.levelFor(200, 8));
        assertEquals(6, c.levelFor(201, 8));
        assertEquals(6, c.levelFor(2_800, 8));
        assertEquals(5, c.levelFor(15_000, 8));
        assertEquals(4, c.levelFor(15_001, 8));
        assertEquals(4, c.levelFor(64 << 20, 8));
        assertEquals(3, c.highestScheduledLevel());
    }

    @Test
    void allUnscheduledAtTheTopLeavesSevenScheduledLevels() {
        HomaConfig w4 = HomaConfig.builder().unscheduledCutoffs().build();
        UnscheduledCutoffs c = UnscheduledCutoffs.fromConfig(w4, 1);
        assertEquals(7, c.levelFor(68_608, 8));
        assertEquals(6, c.highestScheduledLevel());
    }

    @Test
    void fewerLevelsCollapse() {
        HomaConfig two = HomaConfig.builder().priorityLevels(2).build();
        UnscheduledCutoffs c = UnscheduledCutoffs.fromConfig(two, 1);
        assertEquals(1, c.levelFor(100, 2));
        assertEquals(0, c.levelFor(100_000, 2));
        HomaConfig one = HomaConfig.builder().priorityLevels(1).build();
        assertEquals(0, UnscheduledCutoffs.fromConfig(one, 1).levelFor(5, 1));
    }

    @Test
    void clampsToTheSendersLevels() {
        UnscheduledCutoffs c = UnscheduledCutoffs.fromConfig(HomaConfig.defaults(), 1);
        assertEquals(3, c.levelFor(10, 4));
    }

    @Test
    void scheduledLevelsLeaveRoomToPreempt() {
        ScheduledPriorities p = new ScheduledPriorities(3); // levels 0..3
        assertEquals(0, p.levelFor(0, 1)); // one message: lowest, three levels free above it
        assertEquals(1, p.levelFor(0, 2));
        assertEquals(0, p.levelFor(1, 2));
        assertEquals(3, p.levelFor(0, 4));
        assertEquals(3, p.levelFor(0, 8)); // more messages than levels: best ranks from the top
        assertEquals(0, p.levelFor(5, 8));
    }
}
