package io.homa4j.bench.rack;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Picks the emulated rack's link rate for the machine it runs on. The rack's hosts, switch and links all run on
 * this machine's cores: when they are busy, packets wait for a CPU rather than for the link, and the rack measures
 * the machine instead of the protocols. So before the repeats, a short calibration measures what share of the
 * machine the rack takes running Homa at a rate ({@link BusyProbe}: its JVMs and the kernel's packet processing,
 * not what else runs on the machine, so that the choice is the machine's and not the moment's), and the highest
 * rate of {@link #LADDER} at which that stays under {@link #BUSY_TARGET_PCT} is chosen.
 *
 * <p>Rungs are measured from the top down; a rung whose first run lands near the target is run again and judged by
 * the median ({@link #NEAR_TARGET_PCT}). A rung is skipped without measuring when even a lower bound on its
 * share is above the target: the rack's share is a fixed part plus a part that grows with the rate, so scaling a
 * measured share down in proportion to the rate underestimates it.
 *
 * <p>A rate given by hand is measured the same way and refused when the rack would take more than
 * {@link #BUSY_LIMIT_PCT} of the machine at it.
 */
public final class LinkRateCalibration {
    /** The rates tried, highest first, Mbit/s. */
    public static final List<Integer> LADDER = List.of(100, 50, 25, 10);
    /** The chosen rate keeps the rack under this share of the machine (all cores = 100%). */
    public static final double BUSY_TARGET_PCT = 50;
    /** Above this share the rack's packets queue for CPUs: a rate the machine cannot honour. */
    public static final double BUSY_LIMIT_PCT = 85;
    /**
     * A rung measured within this many points of the target is measured {@link #NEAR_TARGET_RUNS} times and judged
     * by the median: one short run's share varied by 20 points between runs on the same machine, so a single run
     * near the target picked either rate by chance, and with it the result.
     */
    public static final double NEAR_TARGET_PCT = 10;
    /** Runs of a rung near the target (odd, for a median). */
    public static final int NEAR_TARGET_RUNS = 3;

    /** Runs the rack briefly at a link rate and returns the share of the machine it took (all cores = 100%). */
    @FunctionalInterface
    public interface BusyProbe {
        double busyPct(int linkMbps) throws Exception;
    }

    /** One measured rung: the median share of its {@code runs} runs. */
    public record Step(int linkMbps, double busyPct, int runs) {
        public Step(int linkMbps, double busyPct) {
            this(linkMbps, busyPct, 1);
        }
    }

    /**
     * The outcome: the rate, what was measured, and one sentence saying why.
     *
     * @param underTarget false when even the lowest rung kept the machine above the target (the rate is then the
     *                    lowest rung, and the reason says so)
     */
    public record Choice(int linkMbps, List<Step> steps, boolean underTarget, String reason) {
    }

    /** The machine cannot honour the rate asked for. */
    public static final class Refused extends Exception {
        private final int limitMbps;

        Refused(String message, int limitMbps) {
            super(message);
            this.limitMbps = limitMbps;
        }

        /** The highest rate this machine can be expected to honour. */
        public int limitMbps() {
            return limitMbps;
        }
    }

    private LinkRateCalibration() {
    }

    /** Walks {@link #LADDER} down with {@code probe} and picks the first rung under the target. */
    public static Choice choose(BusyProbe probe) throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int rung : LADDER) {
            Step last = steps.isEmpty() ? null : steps.get(steps.size() - 1);
            boolean lowest = rung == LADDER.get(LADDER.size() - 1);
            if (last != null && !lowest && last.busyPct() * rung / last.linkMbps() > BUSY_TARGET_PCT) {
                continue; // even in proportion to the rate it would be above the target
            }
            Step step = measure(probe, rung);
            steps.add(step);
            if (step.busyPct() <= BUSY_TARGET_PCT) {
                return new Choice(rung, List.copyOf(steps), true, String.format(Locale.ROOT,
                        "link %d Mbit/s: the rack took %.0f%% of the machine at it%s (target: under %.0f%%)%s", rung,
                        step.busyPct(), medianOf(step), BUSY_TARGET_PCT, higher(steps, rung)));
            }
        }
        Step lowest = steps.get(steps.size() - 1);
        return new Choice(lowest.linkMbps(), List.copyOf(steps), false, String.format(Locale.ROOT,
                "link %d Mbit/s, the lowest rate tried: the rack took %.0f%% of the machine even there (target: under"
                        + " %.0f%%); its CPUs, not only the links, will shape the results", lowest.linkMbps(), lowest.busyPct(),
                BUSY_TARGET_PCT));
    }

    /** One run of {@code rung}, and {@link #NEAR_TARGET_RUNS} in all when the first lands near the target. */
    private static Step measure(BusyProbe probe, int rung) throws Exception {
        double first = probe.busyPct(rung);
        if (Math.abs(first - BUSY_TARGET_PCT) >= NEAR_TARGET_PCT) {
            return new Step(rung, first);
        }
        double[] runs = new double[NEAR_TARGET_RUNS];
        runs[0] = first;
        for (int i = 1; i < runs.length; i++) {
            runs[i] = probe.busyPct(rung);
        }
        Arrays.sort(runs);
        return new Step(rung, runs[runs.length / 2], runs.length);
    }

    private static String medianOf(Step step) {
        return step.runs() > 1 ? " (median of " + step.runs() + " runs)" : "";
    }

    private static String higher(List<Step> steps, int chosen) {
        List<String> above = new ArrayList<>();
        for (Step s : steps) {
            if (s.linkMbps() > chosen) {
                above.add(String.format(Locale.ROOT, "%.0f%% at %d", s.busyPct(), s.linkMbps()));
            }
        }
        return above.isEmpty() ? "" : "; " + String.join(", ", above) + " Mbit/s";
    }

    /**
     * Measures a rate asked for by hand; refuses it when the rack takes more than {@link #BUSY_LIMIT_PCT} of the
     * machine at it, naming the rate it can be expected to honour.
     */
    public static Choice check(int linkMbps, BusyProbe probe) throws Exception {
        double busy = probe.busyPct(linkMbps);
        Step step = new Step(linkMbps, busy);
        if (busy > BUSY_LIMIT_PCT) {
            // share = fixed + k x rate, so the proportional estimate of the rate at the limit is on the safe side
            int limit = (int) Math.max(1, Math.floor(linkMbps * BUSY_LIMIT_PCT / busy));
            throw new Refused(String.format(Locale.ROOT, "--link-mbps %d: the rack took %.0f%% of the machine at it"
                    + " in the calibration, above the %.0f%% at which its CPUs, not the links, set the results;"
                    + " this machine honours about %d Mbit/s at most", linkMbps, busy, BUSY_LIMIT_PCT, limit), limit);
        }
        return new Choice(linkMbps, List.of(step), busy <= BUSY_TARGET_PCT, String.format(Locale.ROOT,
                "link %d Mbit/s (--link-mbps): the rack took %.0f%% of the machine at it%s", linkMbps,
                busy, busy <= BUSY_TARGET_PCT ? "" : String.format(Locale.ROOT, ", above the %.0f%% target",
                        BUSY_TARGET_PCT)));
    }
}
