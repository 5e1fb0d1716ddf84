package io.homa4j.core.sim;

/**
 * A simulated server's application: gets each request once and answers it through {@link SimRequest}, at once or
 * after a virtual delay (a slow server). Runs on the network's thread inside the engine's upcall; must not block.
 */
@FunctionalInterface
public interface RequestHandler {

    /** Handles one request; the handler owns {@code request.payload()} (release it, or pass it on as a reply). */
    void handle(SimRequest request);

    /** Replies with the request itself, at once. */
    static RequestHandler echo() {
        return request -> request.reply(request.payload());
    }

    /** Replies with the request itself after {@code delayNanos} of virtual time. */
    static RequestHandler echoAfter(long delayNanos) {
        return request -> request.replyAfter(delayNanos, request.payload());
    }
}
