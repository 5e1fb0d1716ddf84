package io.homa4j.bench.simulate;

/** What runs on the simulated hosts: Homa, or the same engine with every Homa mechanism turned off. */
public enum SimProtocol {
    /** The engine with its defaults (ablation flags may turn single mechanisms off). */
    HOMA("homa"),
    /**
     * No Homa mechanisms: one priority level (the switch is a single FIFO per port), no grants (every message is
     * wholly unscheduled, so senders blast at line rate), oldest-first order, losses recovered only by the engine's
     * RESEND timeout.
     */
    FIFO_BASELINE("fifo-baseline");

    private final String id;

    SimProtocol(String id) {
        this.id = id;
    }

    /** The name in results.csv and on the command line. */
    public String id() {
        return id;
    }

    /** The name on the command line: {@link #id()}. */
    @Override
    public String toString() {
        return id;
    }
}
