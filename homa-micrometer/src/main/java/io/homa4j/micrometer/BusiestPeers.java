package io.homa4j.micrometer;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-peer traffic over fixed windows, and the busiest peers of the last one. The endpoint's event loop adds
 * every call and served request to the current window; when a window has run its length, the next event closes
 * it, publishes its busiest peers (by bytes moved both ways) as an immutable list and starts a new one. Readers
 * on other threads only ever see published lists, so the event loop never waits for a scrape.
 *
 * <p>Threading: the {@code on*} methods on the endpoint's event loop (one endpoint per instance);
 * {@link #published} and {@link #publishedAtNanos} from any thread.
 */
final class BusiestPeers {
    /** One peer's figures over one window; rates are per second of the window's length. */
    record PeerFigures(InetSocketAddress peer, double callsPerSecond, double failuresPerSecond,
                       double bytesSentPerSecond, double bytesReceivedPerSecond, double meanRttSeconds) {
    }

    private static final class Window {
        long calls;
        long failures;
        long bytesSent;
        long bytesReceived;
        long completed;
        long rttNanosSum;

        long bytes() {
            return bytesSent + bytesReceived;
        }
    }

    private final int limit;
    private final long windowNanos;
    /** Event loop only. */
    private final Map<InetSocketAddress, Window> current = new HashMap<>();
    private long windowStartNanos;

    private volatile List<PeerFigures> published = List.of();
    private volatile long publishedAtNanos;

    BusiestPeers(int limit, long windowNanos, long nowNanos) {
        this.limit = limit;
        this.windowNanos = windowNanos;
        this.windowStartNanos = nowNanos;
        this.publishedAtNanos = nowNanos;
    }

    long windowNanos() {
        return windowNanos;
    }

    void onCallCompleted(InetSocketAddress server, int requestBytes, int responseBytes, long rttNanos, long nowNanos) {
        Window w = window(server, nowNanos);
        w.calls++;
        w.completed++;
        w.rttNanosSum += rttNanos;
        w.bytesSent += requestBytes;
        w.bytesReceived += responseBytes;
    }

    void onCallFailed(InetSocketAddress server, int requestBytes, long nowNanos) {
        Window w = window(server, nowNanos);
        w.calls++;
        w.failures++;
        w.bytesSent += requestBytes;
    }

    void onRequestServed(InetSocketAddress client, int requestBytes, int responseBytes, long nowNanos) {
        Window w = window(client, nowNanos);
        w.calls++;
        w.bytesReceived += requestBytes;
        if (responseBytes >= 0) {
            w.bytesSent += responseBytes;
        } else {
            w.failures++;
        }
    }

    /** The busiest peers of the last closed window, busiest first; at most {@code limit}. */
    List<PeerFigures> published() {
        return published;
    }

    /** When the last window was closed ({@link System#nanoTime()}). */
    long publishedAtNanos() {
        return publishedAtNanos;
    }

    private Window window(InetSocketAddress peer, long nowNanos) {
        if (nowNanos - windowStartNanos >= windowNanos) {
            closeWindow(nowNanos);
        }
        return current.computeIfAbsent(peer, p -> new Window());
    }

    private void closeWindow(long nowNanos) {
        double seconds = (nowNanos - windowStartNanos) / 1e9;
        List<Map.Entry<InetSocketAddress, Window>> entries = new ArrayList<>(current.entrySet());
        entries.sort(Comparator.comparingLong((Map.Entry<InetSocketAddress, Window> e) -> e.getValue().bytes())
                .reversed());
        List<PeerFigures> busiest = new ArrayList<>(Math.min(limit, entries.size()));
        for (int i = 0; i < entries.size() && i < limit; i++) {
            Window w = entries.get(i).getValue();
            busiest.add(new PeerFigures(entries.get(i).getKey(), w.calls / seconds, w.failures / seconds,
                    w.bytesSent / seconds, w.bytesReceived / seconds,
                    w.completed == 0 ? Double.NaN : w.rttNanosSum / 1e9 / w.completed));
        }
        current.clear();
        windowStartNanos = nowNanos;
        published = List.copyOf(busiest);
        publishedAtNanos = nowNanos;
    }
}
