package io.homa4j.bench.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Unloaded round-trip time as a function of message length, from RTTs measured at a few lengths: the denominator
 * of slowdown. Between two measured lengths the RTT is interpolated linearly (an idle round trip is a fixed cost
 * plus serialization, which is linear in the length between packet boundaries); beyond the longest measured length
 * the last two points are extrapolated, below the shortest the shortest's RTT holds.
 *
 * <p>The same table serves the simulator (measured on the idle simulated rack) and the emulated rack (measured by
 * {@link UnloadedProbe}), and travels between JVMs as {@code unloaded.csv} ({@link #write}, {@link #read}).
 * Immutable; thread-safe.
 */
public final class RttByLength {
    public static final String HEADER = "length_bytes,rtt_us";

    private final long[] lengths;
    private final double[] rttNanos;

    /**
     * @param lengths  measured lengths, strictly ascending, each at least 1
     * @param rttNanos the RTT at each length, nanoseconds, each positive
     */
    public RttByLength(long[] lengths, double[] rttNanos) {
        if (lengths.length == 0 || lengths.length != rttNanos.length) {
            throw new IllegalArgumentException("need one RTT per length, and at least one: " + lengths.length + " / "
                    + rttNanos.length);
        }
        for (int i = 0; i < lengths.length; i++) {
            if (lengths[i] < 1 || (i > 0 && lengths[i] <= lengths[i - 1])) {
                throw new IllegalArgumentException("lengths must be >= 1 and strictly ascending: "
                        + Arrays.toString(lengths));
            }
            if (!(rttNanos[i] > 0)) {
                throw new IllegalArgumentException("RTTs must be positive: " + rttNanos[i] + " at " + lengths[i] + " B");
            }
        }
        this.lengths = lengths.clone();
        this.rttNanos = rttNanos.clone();
    }

    /** Unloaded RTT of a message of {@code length} bytes (at least 1), nanoseconds. */
    public double rttNanos(long length) {
        if (length < 1) {
            throw new IllegalArgumentException("length must be >= 1: " + length);
        }
        int i = Arrays.binarySearch(lengths, length);
        if (i >= 0) {
            return rttNanos[i];
        }
        int hi = -i - 1;
        if (hi == 0 || lengths.length == 1) {
            return hi == 0 ? rttNanos[0] : rttNanos[lengths.length - 1];
        }
        boolean beyond = hi == lengths.length;
        if (beyond) {
            hi = lengths.length - 1; // extrapolate along the last segment, never below the last point
        }
        int lo = hi - 1;
        double t = (double) (length - lengths[lo]) / (lengths[hi] - lengths[lo]);
        double rtt = rttNanos[lo] + t * (rttNanos[hi] - rttNanos[lo]);
        return beyond ? Math.max(rttNanos[hi], rtt) : rtt;
    }

    /** Number of measured lengths. */
    public int points() {
        return lengths.length;
    }

    public long longestMeasured() {
        return lengths[lengths.length - 1];
    }

    /** {@code length_bytes,rtt_us} lines under {@link #HEADER}. */
    public String format() {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (int i = 0; i < lengths.length; i++) {
            sb.append(lengths[i]).append(',').append(String.format(Locale.ROOT, "%.3f", rttNanos[i] / 1e3))
                    .append('\n');
        }
        return sb.toString();
    }

    public void write(Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, format(), StandardCharsets.UTF_8);
    }

    /** Parses what {@link #write} wrote; throws {@link IOException} naming the file and line on bad content. */
    public static RttByLength read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).trim().equals(HEADER)) {
            throw new IOException(file + ": first line must be '" + HEADER + "'");
        }
        List<long[]> rows = new ArrayList<>();
        List<Double> rtts = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            try {
                if (cells.length != 2) {
                    throw new NumberFormatException("expected 2 cells");
                }
                rows.add(new long[] {Long.parseLong(cells[0])});
                rtts.add(Double.parseDouble(cells[1]) * 1e3);
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        long[] lengths = rows.stream().mapToLong(r -> r[0]).toArray();
        double[] values = rtts.stream().mapToDouble(Double::doubleValue).toArray();
        try {
            return new RttByLength(lengths, values);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }
}
