package io.homa4j.bench.workload;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A message-length distribution given as quantile points {@code fraction:bytes}, interpolated log-linearly between
 * points (the log of the length is linear in the cumulative fraction), optionally truncated at a maximum length.
 *
 * <p>Truncation clamps: every length the full distribution would draw above {@code maxMessage} becomes exactly
 * {@code maxMessage}, so the tail's probability mass stays in the workload (as the Linux module's tooling does). Below
 * the first point every draw is the first point's length.
 *
 * <p>Immutable and thread-safe; {@link #sample(SplittableRandom)} uses only the caller's generator.
 */
public final class Workload {
    private final String name;
    private final double[] fractions;
    private final double[] logLengths;
    private final double statedMeanBytes;
    private final int maxMessage;

    private Workload(String name, double[] fractions, double[] logLengths, double statedMeanBytes, int maxMessage) {
        this.name = name;
        this.fractions = fractions;
        this.logLengths = logLengths;
        this.statedMeanBytes = statedMeanBytes;
        this.maxMessage = maxMessage;
    }

    /**
     * A workload from quantile points {@code "f1:b1 f2:b2 ..."}: fractions strictly ascending in (0, 1], lengths
     * ascending and positive. The last fraction is treated as 1 when it is lower (W4 ends at 0.999).
     */
    public static Workload of(String name, String points, double statedMeanBytes) {
        String[] parts = points.trim().split("\\s+");
        double[] f = new double[parts.length];
        double[] logLen = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String[] fb = parts[i].split(":");
            if (fb.length != 2) {
                throw new IllegalArgumentException("quantile point must be fraction:bytes: " + parts[i]);
            }
            f[i] = Double.parseDouble(fb[0]);
            double bytes = Double.parseDouble(fb[1]);
            if (!(f[i] > 0 && f[i] <= 1) || (i > 0 && f[i] <= f[i - 1])) {
                throw new IllegalArgumentException("fractions must ascend within (0, 1]: " + points);
            }
            if (!(bytes >= 1) || (i > 0 && Math.log(bytes) < logLen[i - 1])) {
                throw new IllegalArgumentException("lengths must be >= 1 and ascend: " + points);
            }
            logLen[i] = Math.log(bytes);
        }
        f[f.length - 1] = 1.0;
        return new Workload(name, f, logLen, statedMeanBytes, Integer.MAX_VALUE);
    }

    /** Every message exactly {@code bytes} long. */
    public static Workload fixed(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("message length must be >= 1: " + bytes);
        }
        return new Workload(Integer.toString(bytes), new double[] {1.0}, new double[] {Math.log(bytes)}, bytes,
                Integer.MAX_VALUE);
    }

    /** The same distribution with every longer draw clamped to {@code maxMessage} bytes. */
    public Workload truncatedAt(int maxMessage) {
        if (maxMessage < 1) {
            throw new IllegalArgumentException("max message must be >= 1: " + maxMessage);
        }
        return new Workload(name, fractions, logLengths, statedMeanBytes, maxMessage);
    }

    public String name() { return name; }

    /** Truncation length; {@link Integer#MAX_VALUE} when not truncated. */
    public int maxMessage() { return maxMessage; }

    /** Mean as published with the workload (for the untruncated distribution); for a fixed size, that size. */
    public double statedMeanBytes() { return statedMeanBytes; }

    /** The message length at cumulative fraction {@code fraction} in [0, 1], truncation applied. */
    public int quantile(double fraction) {
        double logLength;
        if (fraction <= fractions[0]) {
            logLength = logLengths[0];
        } else {
            int i = Arrays.binarySearch(fractions, fraction);
            if (i >= 0) {
                logLength = logLengths[i];
            } else {
                int hi = -i - 1;
                if (hi >= fractions.length) {
                    logLength = logLengths[fractions.length - 1];
                } else {
                    int lo = hi - 1;
                    double t = (fraction - fractions[lo]) / (fractions[hi] - fractions[lo]);
                    logLength = logLengths[lo] + t * (logLengths[hi] - logLengths[lo]);
                }
            }
        }
        long bytes = Math.max(1, Math.round(Math.exp(logLength)));
        return (int) Math.min(bytes, maxMessage);
    }

    /** One length drawn by inverse-transform sampling. */
    public int sample(SplittableRandom random) {
        return quantile(random.nextDouble());
    }

    /** Fraction of messages no longer than {@code bytes} (the CDF), truncation applied. */
    public double cumulativeFraction(long bytes) {
        if (bytes >= maxMessage) {
            return 1.0;
        }
        double logBytes = Math.log(Math.max(bytes, 1)) + 1e-12;
        if (logBytes < logLengths[0]) {
            return 0.0;
        }
        double result = fractions[0];
        for (int i = 1; i < fractions.length; i++) {
            if (logBytes >= logLengths[i]) {
                result = fractions[i];
            } else {
                double span = logLengths[i] - logLengths[i - 1];
                result = fractions[i - 1] + (fractions[i] - fractions[i - 1]) * (logBytes - logLengths[i - 1]) / span;
                break;
            }
        }
        return Math.min(1.0, result);
    }

    /**
     * Exact mean of the interpolated (and truncated) distribution. On a segment where the log-length is linear in
     * the fraction, the mean length is {@code (f2 - f1) (b2 - b1) / ln(b2 / b1)}.
     */
    public double meanBytes() {
        double logMax = Math.log(maxMessage);
        double mean = fractions[0] * Math.min(Math.exp(logLengths[0]), maxMessage);
        for (int i = 1; i < fractions.length; i++) {
            mean += segmentMean(fractions[i - 1], logLengths[i - 1], fractions[i], logLengths[i], logMax);
        }
        return mean;
    }

    private static double segmentMean(double f1, double l1, double f2, double l2, double logMax) {
        if (l1 >= logMax) {
            return (f2 - f1) * Math.exp(logMax);
        }
        if (l2 <= logMax) {
            return l2 == l1 ? (f2 - f1) * Math.exp(l1) : (f2 - f1) * (Math.exp(l2) - Math.exp(l1)) / (l2 - l1);
        }
        double fCut = f1 + (f2 - f1) * (logMax - l1) / (l2 - l1);
        return segmentMean(f1, l1, fCut, logMax, logMax) + (f2 - fCut) * Math.exp(logMax);
    }

    @Override
    public String toString() {
        return maxMessage == Integer.MAX_VALUE ? name
                : String.format(Locale.ROOT, "%s (truncated at %d B)", name, maxMessage);
    }
}
