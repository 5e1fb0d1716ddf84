package io.homa4j;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCounted;
import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps README.md's "## Usage" example true: it is extracted, compiled as written, and run. */
class ReadmeUsageTest {
    private static final Pattern USAGE = Pattern.compile("## Usage\\s*```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS_NAME = Pattern.compile("public class (\\w+)");

    static String usageExample() throws Exception {
        Path readme = Path.of("..", "README.md");
        if (!Files.exists(readme)) {
            readme = Path.of("README.md");
        }
        Matcher m = USAGE.matcher(Files.readString(readme));
        assertTrue(m.find(), "README.md has a '## Usage' section starting with a ```java block");
        return m.group(1);
    }

    @Test
    void usageExampleCompilesAndPrintsTheEcho() throws Exception {
        String source = usageExample();
        Matcher name = CLASS_NAME.matcher(source);
        assertTrue(name.find(), "the example is a public class");
        Path dir = Files.createTempDirectory("readme-usage");
        Path file = dir.resolve(name.group(1) + ".java");
        Files.writeString(file, source);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("-classpath", classpath(), "-d", dir.toString(), "--release", "17");
            boolean ok = javac.getTask(null, files, diagnostics, options, null,
                    files.getJavaFileObjects(file.toFile())).call();
            String errors = diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(Object::toString).collect(Collectors.joining("\n"));
            assertTrue(ok, "README usage example does not compile:\n" + errors);
        }

        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass(name.group(1)).getMethod("main", String[].class);
            PrintStream original = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                main.invoke(null, (Object) new String[0]);
            } finally {
                System.setOut(original);
            }
            assertEquals("hello", out.toString(StandardCharsets.UTF_8).trim());
        }
    }

    /** The jars and class directories the example needs, found from classes this test can load. */
    private static String classpath() throws Exception {
        Set<String> entries = new LinkedHashSet<>();
        for (Class<?> c : new Class<?>[] {HomaEndpoint.class, HomaConfig.class, ByteBuf.class, EventLoopGroup.class,
                ReferenceCounted.class, org.slf4j.Logger.class}) {
            entries.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        }
        return String.join(File.pathSeparator, entries);
    }
}
