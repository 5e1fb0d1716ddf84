package io.homa4j.bench.workload;

import java.util.Locale;

/**
 * The five message-length distributions of the Homa paper, as quantile figures (fraction:bytes) from
 * {@code shared/DESIGN.md}, and the parser for {@code --workload w1..w5|SIZE}.
 */
public final class Workloads {
    /** Facebook memcached. */
    public static final Workload W1 = Workload.of("W1",
            "0.1:8 0.3:8 0.4:11 0.5:27 0.6:79 0.7:151 0.8:264 0.9:503 0.95:804 0.99:1876 0.999:4924 1:100000", 189);
    /** Google search RPC. */
    public static final Workload W2 = Workload.of("W2",
            "0.1:8 0.2:34 0.3:58 0.4:171 0.5:269 0.6:320 0.7:366 0.8:427 0.9:512 0.95:931 0.99:3151 0.999:21845"
                    + " 1:3529904", 442);
    /** Google all RPC. */
    public static final Workload W3 = Workload.of("W3",
            "0.1:36 0.2:77 0.3:110 0.4:158 0.5:268 0.6:313 0.7:402 0.8:573 0.9:1755 0.95:5521 0.99:31013"
                    + " 0.999:356516 1:15158197", 2_928);
    /** Facebook Hadoop: the talk's figure is this one truncated at 1,000,000 B. */
    public static final Workload W4 = Workload.of("W4",
            "0.01:130 0.05:297 0.1:315 0.2:376 0.3:502 0.4:561 0.5:662 0.6:960 0.7:6387 0.8:49408 0.9:120373"
                    + " 0.95:273075 0.98:1660940 0.99:3430822 0.999:10000000", 127_797);
    /** DCTCP web search. */
    public static final Workload W5 = Workload.of("W5",
            "0.01:1430 0.1:5720 0.2:19110 0.3:27930 0.4:48510 0.5:72030 0.6:195510 0.7:980490 0.8:1959510"
                    + " 0.9:4899510 0.95:19600980 0.99:27440490 1:29400000", 2_560_000);

    private Workloads() {
    }

    /**
     * {@code w1}..{@code w5} (any case) or a positive integer length in bytes (every message that long).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Workload parse(String spec) {
        switch (spec.toLowerCase(Locale.ROOT)) {
            case "w1": return W1;
            case "w2": return W2;
            case "w3": return W3;
            case "w4": return W4;
            case "w5": return W5;
            default:
                try {
                    return Workload.fixed(Integer.parseInt(spec));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("workload must be w1..w5 or a length in bytes: " + spec);
                }
        }
    }
}
