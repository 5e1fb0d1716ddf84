package io.homa4j.transport.internal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EpollWaitTimersTest {
    private String before;

    @BeforeEach
    void remember() {
        before = System.getProperty(EpollWaitTimers.PROPERTY);
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(EpollWaitTimers.PROPERTY);
        } else {
            System.setProperty(EpollWaitTimers.PROPERTY, before);
        }
    }

    @Test
    void unsetMeansTheTimerFd() {
        System.clearProperty(EpollWaitTimers.PROPERTY);
        EpollWaitTimers.preferTimerFd();
        assertEquals("0", System.getProperty(EpollWaitTimers.PROPERTY));
    }

    @Test
    void anApplicationsChoiceStays() {
        System.setProperty(EpollWaitTimers.PROPERTY, "10");
        EpollWaitTimers.preferTimerFd();
        assertEquals("10", System.getProperty(EpollWaitTimers.PROPERTY));
    }
}
