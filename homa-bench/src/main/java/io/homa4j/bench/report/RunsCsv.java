package io.homa4j.bench.report;

import io.homa4j.bench.driver.RunStats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code runs.csv}: one row per client run (protocol, workload, when it ended and its {@link RunStats}), written
 * next to {@code histograms.csv}, so that {@code merge} and {@code compare} can tell whether the runs behind a
 * figure were overloaded and what they offered.
 */
public final class RunsCsv {
    public static final String FILE_NAME = "runs.csv";
    public static final String HEADER = "protocol,workload,finished_utc,commit,arrivals,sent,completed,failed,"
            + "waited_outstanding_cap,skipped_outstanding_cap,unfinished,recorded,send_lag_p50_us,send_lag_p99_us,"
            + "offered_mbps,achieved_mbps,client_lag_p99_us,wake_lag_p99_us";
    /** The header before the send lag was split by cause (read with the split unknown). */
    private static final String HEADER_16 = HEADER.substring(0, HEADER.indexOf(",client_lag_p99_us"));

    /**
     * One client run: what it offered ({@code workload}, e.g. "W4 (max 1000000 B)"), when it ended, the commit of
     * the bench that ran it ("unknown" where it could not be told) and its counts.
     */
    public record ClientRun(String workload, Instant finished, String commit, RunStats stats) {
    }

    private RunsCsv() {
    }

    public static String format(List<ClientRun> runs) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (ClientRun run : runs) {
            RunStats s = run.stats();
            sb.append(String.format(Locale.ROOT, "%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%.3f,%.3f,%s,%s%n",
                    s.protocol(), run.workload().replace(',', ';'), run.finished(), run.commit().replace(',', ';'),
                    s.arrivals(), s.sent(),
                    s.completed(), s.failed(), s.waitedForCap(), s.skippedAtCap(), s.unfinished(), s.recorded(),
                    number(s.sendLagP50Micros()), number(s.sendLagP99Micros()), s.offeredMbps(), s.achievedMbps(),
                    number(s.queueLagP99Micros()), number(s.wakeLagP99Micros())));
        }
        return sb.toString();
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
    }

    public static Path write(Path dir, List<ClientRun> runs) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        Files.writeString(file, format(runs), StandardCharsets.UTF_8);
        return file;
    }

    /** The runs in {@code dir}'s runs.csv; empty when there is none (a run of an older bench). */
    public static List<ClientRun> readIfPresent(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        return Files.exists(file) ? read(file) : List.of();
    }

    /** Parses runs.csv; throws {@link IOException} naming the file and line on malformed content. */
    public static List<ClientRun> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).trim().equals(HEADER) && !lines.get(0).trim().equals(HEADER_16)) {
            throw new IOException(file + ": first line must be '" + HEADER + "'");
        }
        int cells = lines.get(0).trim().split(",").length;
        List<ClientRun> runs = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] c = line.split(",", -1);
            if (c.length != cells) {
                throw new IOException(file + ":" + (i + 1) + ": expected " + cells + " cells");
            }
            try {
                RunStats stats = new RunStats(c[0], Long.parseLong(c[4]), Long.parseLong(c[5]), Long.parseLong(c[6]),
                        Long.parseLong(c[7]), Long.parseLong(c[8]), Long.parseLong(c[9]), Long.parseLong(c[10]),
                        Long.parseLong(c[11]), optional(c[12]), optional(c[13]),
                        cells > 16 ? optional(c[16]) : Double.NaN, cells > 16 ? optional(c[17]) : Double.NaN,
                        Double.parseDouble(c[14]), Double.parseDouble(c[15]));
                runs.add(new ClientRun(c[1], Instant.parse(c[2]), c[3], stats));
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return runs;
    }

    private static double optional(String cell) {
        return cell.isEmpty() ? Double.NaN : Double.parseDouble(cell);
    }
}
