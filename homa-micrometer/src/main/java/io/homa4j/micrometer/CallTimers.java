package io.homa4j.micrometer;

import io.homa4j.core.ErrorCode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The per-call timers: client calls by outcome and request size, served requests by outcome and request size.
 * Timers are created once per registry when bound, so recording a call is an array lookup and
 * {@link Timer#record}, with no tag building on the event loop. Calls that end before any registry is bound are
 * not recorded.
 *
 * <p>Threading: {@link #bind} from any thread; the record methods from the endpoint's event loop.
 */
final class CallTimers {
    static final String CLIENT = "homa.client.calls";
    static final String SERVER = "homa.server.requests";
    static final String OK = "ok";
    static final String REPLIED = "replied";
    static final String FAILED = "failed";

    private static final ErrorCode[] CODES = ErrorCode.values();

    private final SizeBuckets buckets;
    private final boolean histogram;
    private final List<Table> tables = new CopyOnWriteArrayList<>();

    CallTimers(SizeBuckets buckets, boolean histogram) {
        this.buckets = buckets;
        this.histogram = histogram;
    }

    /** One registry's timers. Client outcome 0 is "ok", then one per ErrorCode; server 0 replied, 1 failed. */
    private record Table(Timer[][] client, Timer[][] server) {
    }

    void bind(MeterRegistry registry, Tags tags) {
        int n = buckets.count();
        Timer[][] client = new Timer[CODES.length + 1][n];
        Timer[][] server = new Timer[2][n];
        for (int b = 0; b < n; b++) {
            Tags size = tags.and("size", buckets.label(b));
            client[0][b] = timer(registry, CLIENT, "round-trip time of client calls, from call() to their end",
                    size.and("outcome", OK));
            for (ErrorCode code : CODES) {
                client[code.ordinal() + 1][b] = timer(registry, CLIENT,
                        "round-trip time of client calls, from call() to their end", size.and("outcome", code.name()));
            }
            server[0][b] = timer(registry, SERVER, "service time of requests, from delivery to the handler's answer",
                    size.and("outcome", REPLIED));
            server[1][b] = timer(registry, SERVER, "service time of requests, from delivery to the handler's answer",
                    size.and("outcome", FAILED));
        }
        tables.add(new Table(client, server));
    }

    private Timer timer(MeterRegistry registry, String name, String description, Tags tags) {
        return Timer.builder(name).description(description).tags(tags).publishPercentileHistogram(histogram)
                .register(registry);
    }

    void callCompleted(int requestBytes, long rttNanos) {
        int b = buckets.indexOf(requestBytes);
        for (Table t : tables) {
            t.client[0][b].record(rttNanos, TimeUnit.NANOSECONDS);
        }
    }

    void callFailed(int requestBytes, ErrorCode code, long elapsedNanos) {
        int b = buckets.indexOf(requestBytes);
        for (Table t : tables) {
            t.client[code.ordinal() + 1][b].record(elapsedNanos, TimeUnit.NANOSECONDS);
        }
    }

    void requestServed(int requestBytes, boolean replied, long serviceNanos) {
        int b = buckets.indexOf(requestBytes);
        for (Table t : tables) {
            t.server[replied ? 0 : 1][b].record(serviceNanos, TimeUnit.NANOSECONDS);
        }
    }
}
