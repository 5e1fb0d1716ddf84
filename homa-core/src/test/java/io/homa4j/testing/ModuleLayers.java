package io.homa4j.testing;

import java.io.File;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Module layers for the tests that prove a module descriptor on a module path: the tests themselves run on the
 * class path (see the parent POM), so these build a layer of its own from the class path entries that are modules.
 */
public final class ModuleLayers {
    private ModuleLayers() {
    }

    /**
     * Resolves {@code roots} in a new layer over the boot layer, with one class loader. Its module path holds the
     * class path entries that are Homa4J's modules (directories, or {@code homa-*} jars, with a module-info) and the
     * jars whose file names start with one of {@code jarPrefixes}, such as {@code "netty-"}; test classes, JUnit
     * and the rest stay out.
     */
    public static ModuleLayer layer(Set<String> roots, String... jarPrefixes) throws IOException {
        ModuleFinder finder = ModuleFinder.of(modulePath(List.of(jarPrefixes)).toArray(Path[]::new));
        Configuration configuration = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), roots);
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }

    /** The packages {@code module} exports; each must be exported to every module (a qualified export fails). */
    public static Set<String> exports(Module module) {
        Set<String> exported = new TreeSet<>();
        for (ModuleDescriptor.Exports e : module.getDescriptor().exports()) {
            assertFalse(e.isQualified(), e.toString());
            exported.add(e.source());
        }
        return exported;
    }

    private static List<Path> modulePath(List<String> jarPrefixes) throws IOException {
        List<Path> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String name = p.getFileName() == null ? "" : p.getFileName().toString();
            boolean homaModule = Files.isDirectory(p) ? Files.exists(p.resolve("module-info.class"))
                    : name.startsWith("homa-") && hasModuleInfo(p);
            if (homaModule || jarPrefixes.stream().anyMatch(name::startsWith)) {
                path.add(p);
            }
        }
        return path;
    }

    private static boolean hasModuleInfo(Path jar) throws IOException {
        if (!Files.isRegularFile(jar) || !jar.toString().endsWith(".jar")) {
            return false;
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.getEntry("module-info.class") != null;
        }
    }
}
