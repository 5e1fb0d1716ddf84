package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The most recent server RPCs whose handler ran and that were freed: a delayed duplicate of such a request is
 * refused rather than handled twice, and a client asking about one learns the server may have run it. Bounded;
 * the oldest are forgotten first. Owned by {@link ServerCalls}; engine thread only.
 */
final class Tombstones {
    /** RPCs remembered. */
    static final int CAPACITY = 4096;

    private final LinkedHashMap<ServerKey, Boolean> keys = new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ServerKey, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };
    /** The lookup key of {@link #contains(InetSocketAddress, long)}, re-aimed per lookup, never stored. */
    private final ServerKey probe = ServerKey.probe();

    /** Remembers that {@code key}'s handler ran. */
    void add(ServerKey key) {
        keys.put(key, Boolean.TRUE);
    }

    boolean contains(ServerKey key) {
        return keys.containsKey(key);
    }

    boolean contains(InetSocketAddress client, long clientId) {
        return keys.containsKey(probe.aim(client, clientId));
    }

    void clear() {
        keys.clear();
    }
}
