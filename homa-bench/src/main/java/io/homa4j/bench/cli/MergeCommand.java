package io.homa4j.bench.cli;

import io.homa4j.bench.report.ComparisonTable;
import io.homa4j.bench.report.HistogramsCsv;
import io.homa4j.bench.report.ResultSet;
import io.homa4j.bench.report.ResultsCsv;
import io.homa4j.bench.report.RttPlot;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code merge}: adds up the histograms of several client runs and writes the combined results and plot. */
final class MergeCommand implements Command {
    static final String SVG_FILE = "rtt.svg";
    private static final Set<String> OPTIONS = Set.of("in", "out", "title");

    @Override
    public int run(List<String> argv, PrintStream out, PrintStream err) throws Exception {
        Args args = Args.parse("merge", argv, OPTIONS);
        List<String> inputs = args.list("in", null);
        Path outDir = Path.of(args.required("out"));
        String title = args.string("title", "Round-trip time by message length");
        ResultSet results = new ResultSet();
        for (String dir : inputs) {
            Path file = Path.of(dir).resolve(HistogramsCsv.FILE_NAME);
            try {
                results.addAll(HistogramsCsv.read(file));
            } catch (NoSuchFileException e) {
                throw new IOException("no " + HistogramsCsv.FILE_NAME + " in " + dir);
            }
        }
        write(results, outDir, title, out);
        return Cli.OK;
    }

    /** Writes results.csv, histograms.csv and rtt.svg into {@code outDir} and prints the table. */
    static void write(ResultSet results, Path outDir, String title, PrintStream out) throws IOException {
        write(results, outDir, title, List.of(), out);
    }

    /** As above, with notes for the plot (what the curves leave out). */
    static void write(ResultSet results, Path outDir, String title, List<String> notes, PrintStream out)
            throws IOException {
        ResultsCsv.write(outDir, results.rows());
        HistogramsCsv.write(outDir, results.rows());
        Files.writeString(outDir.resolve(SVG_FILE), RttPlot.render(results, title, notes), StandardCharsets.UTF_8);
        out.print(ComparisonTable.format(results));
        out.println("wrote " + outDir.resolve(ResultsCsv.FILE_NAME) + " and " + outDir.resolve(SVG_FILE));
    }
}
