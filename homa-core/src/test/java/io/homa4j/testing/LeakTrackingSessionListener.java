package io.homa4j.testing;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/** Installs {@link LeakRecordingDetectorFactory} when the JUnit launcher session opens, before any test class loads. */
public final class LeakTrackingSessionListener implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        LeakRecordingDetectorFactory.install();
    }
}
