package io.homa4j;

import io.netty.util.Version;

import java.util.Map;
import java.util.TreeMap;

/**
 * Refuses to start on a class path that mixes in Netty older than 4.2. Homa4J is built against Netty 4.2 (its
 * {@code IoHandler} event loops, epoll's segmented datagrams); when an application's dependency tree resolves
 * some Netty artifact to 4.1 the failure would otherwise show up as a {@code NoSuchMethodError} deep inside the
 * event loop, or not at all until a rarely used path runs. Importing {@code io.homa4j:homa4j-bom} prevents the
 * mix; this check names it when the BOM was not used.
 */
final class NettyRequirement {
    static final int REQUIRED_MAJOR = 4;
    static final int REQUIRED_MINOR = 2;

    private static volatile boolean checked;

    private NettyRequirement() {
    }

    /** Checks the Netty artifacts visible to Homa4J's class loader, once per class loader. */
    static void checkOnce() {
        if (checked) {
            return;
        }
        Map<String, String> versions = new TreeMap<>();
        for (Map.Entry<String, Version> e : Version.identify(NettyRequirement.class.getClassLoader()).entrySet()) {
            versions.put(e.getKey(), e.getValue().artifactVersion());
        }
        check(versions);
        checked = true;
    }

    /**
     * Throws when an artifact's version is older than 4.2.
     *
     * @param versions Netty artifact id to its version, as {@link Version#identify()} reports them
     * @throws IllegalStateException naming every artifact that is too old
     */
    static void check(Map<String, String> versions) {
        StringBuilder tooOld = new StringBuilder();
        for (Map.Entry<String, String> e : versions.entrySet()) {
            if (isOlderThanRequired(e.getValue())) {
                tooOld.append(tooOld.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue());
            }
        }
        if (tooOld.length() > 0) {
            throw new IllegalStateException("Homa4J needs Netty " + REQUIRED_MAJOR + "." + REQUIRED_MINOR
                    + " or newer, but the class path holds " + tooOld + "; import io.homa4j:homa4j-bom (or "
                    + "io.netty:netty-bom 4.2.x) in dependencyManagement so every Netty artifact is 4.2");
        }
    }

    private static boolean isOlderThanRequired(String version) {
        String[] parts = version.split("\\.", 3);
        if (parts.length < 2) {
            return false; // not a version we can read: let it be rather than refuse a working class path
        }
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            return major < REQUIRED_MAJOR || (major == REQUIRED_MAJOR && minor < REQUIRED_MINOR);
        } catch (NumberFormatException unreadable) {
            return false;
        }
    }
}
