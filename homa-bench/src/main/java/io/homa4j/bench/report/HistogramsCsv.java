package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;

/**
 * {@code histograms.csv}: every bucket's full HdrHistogram (nanoseconds, compressed encoding, base64), so runs of
 * several clients merge exactly rather than by averaging percentiles.
 */
public final class HistogramsCsv {
    public static final String HEADER = "protocol,bucket_max_bytes,histogram_base64";
    public static final String FILE_NAME = "histograms.csv";

    private HistogramsCsv() {
    }

    public static String format(List<BucketLatencies> rows) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (BucketLatencies row : rows) {
            Histogram h = row.histogram();
            ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
            int length = h.encodeIntoCompressedByteBuffer(buffer);
            byte[] bytes = new byte[length];
            buffer.flip();
            buffer.get(bytes);
            sb.append(row.protocol()).append(',').append(row.bucketMaxBytes()).append(',')
                    .append(Base64.getEncoder().encodeToString(bytes)).append('\n');
        }
        return sb.toString();
    }

    public static Path write(Path dir, List<BucketLatencies> rows) throws IOException {
        return write(dir, FILE_NAME, rows);
    }

    /** As {@link #write(Path, List)} under another name (e.g. slowdown histograms, in thousandths). */
    public static Path write(Path dir, String fileName, List<BucketLatencies> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName);
        Files.writeString(file, format(rows), StandardCharsets.UTF_8);
        return file;
    }

    /** Parses {@code histograms.csv}; throws {@link IOException} naming the file and line on malformed content. */
    public static List<BucketLatencies> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).trim().equals(HEADER)) {
            throw new IOException(file + ": first line must be '" + HEADER + "'");
        }
        List<BucketLatencies> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            if (cells.length != 3 || cells[0].isEmpty()) {
                throw new IOException(file + ":" + (i + 1) + ": expected 3 cells");
            }
            try {
                int bound = Integer.parseInt(cells[1]);
                byte[] bytes = Base64.getDecoder().decode(cells[2]);
                Histogram h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes),
                        LatencyRecorder.HIGHEST_TRACKABLE_NANOS);
                rows.add(new BucketLatencies(cells[0], bound, h));
            } catch (IllegalArgumentException | DataFormatException | java.nio.BufferUnderflowException
                     | ArrayIndexOutOfBoundsException e) {
                throw new IOException(file + ":" + (i + 1) + ": bad bucket or histogram: " + e, e);
            }
        }
        return rows;
    }
}
