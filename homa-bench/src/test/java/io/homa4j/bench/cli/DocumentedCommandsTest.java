package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Every bench-jar command line the README and the docs give to run (a line starting with java) still parses. */
class DocumentedCommandsTest {
    private static final Pattern COMMAND = Pattern.compile(
            "(?m)^\\s*java [^\\n]*?homa-bench\\.jar ((?!jmh\\b)[a-z]+\\b[^`|&>\\n]*)");

    @Test
    void everyDocumentedCommandLineParses() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(files::add);
        }
        int parsed = 0;
        for (Path file : files) {
            // a line ending in a backslash continues on the next
            String text = Files.readString(file).replaceAll("\\\\\\n\\s*", " ");
            Matcher m = COMMAND.matcher(text);
            while (m.find()) {
                String line = m.group(1).trim();
                if (line.contains("[") || line.contains("$") || line.contains("...") || line.contains("=N")
                        || line.endsWith("N") && line.matches(".* [A-Z]+$")) {
                    continue; // a synopsis with placeholders, not a command to run
                }
                String[] argv = line.split("\\s+");
                try {
                    Cli.parseCommandLine(argv);
                    parsed++;
                } catch (RuntimeException e) {
                    fail(file.getFileName() + ": " + line + ": " + e, e);
                }
            }
        }
        assertTrue(parsed >= 10, "found the docs' command lines: " + parsed);
    }
}
