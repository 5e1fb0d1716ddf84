package io.homa4j;

import java.util.ArrayList;
import java.util.List;

/**
 * The endpoints a test opened. {@link #closeAll} prints each one's transport counters and engine metrics before
 * closing it, so a failed run's log shows what the endpoints saw. Test thread only.
 */
final class OpenedEndpoints {
    private final List<HomaEndpoint> endpoints = new ArrayList<>();

    /** Tracks {@code endpoint} and returns it. */
    HomaEndpoint add(HomaEndpoint endpoint) {
        endpoints.add(endpoint);
        return endpoint;
    }

    void closeAll() {
        endpoints.forEach(e -> System.out.println(e + "\n  " + e.transportStats() + "\n  " + e.metrics()));
        endpoints.forEach(HomaEndpoint::close);
        endpoints.clear();
    }
}
