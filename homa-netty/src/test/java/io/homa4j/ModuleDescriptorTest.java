package io.homa4j;

import org.junit.jupiter.api.Test;

import java.io.File;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tests run on the class path (see the parent POM), so this one proves the module descriptors of homa-core and
 * homa-netty on a module path: both resolve against Netty's and SLF4J's own modules in a layer of their own,
 * export exactly their API packages, and keep the internal packages to themselves.
 */
class ModuleDescriptorTest {

    @Test
    void modulesResolveAndExportOnlyTheirApi() throws Exception {
        ModuleFinder finder = ModuleFinder.of(modulePath().toArray(Path[]::new));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(finder, ModuleFinder.of(), Set.of("io.homa4j.netty"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getPlatformClassLoader());

        Module netty = layer.findModule("io.homa4j.netty").orElseThrow();
        Module core = layer.findModule("io.homa4j.core").orElseThrow();
        assertEquals(Set.of("io.homa4j", "io.homa4j.transport", "io.homa4j.faults"), exports(netty));
        assertEquals(Set.of("io.homa4j.core", "io.homa4j.core.metrics", "io.homa4j.core.wire",
                "io.homa4j.core.sim"), exports(core));
        assertTrue(netty.getPackages().contains("io.homa4j.transport.internal"));
        assertFalse(netty.isExported("io.homa4j.transport.internal"));
        assertFalse(netty.isExported("io.homa4j.faults.internal"));
        assertTrue(core.getPackages().contains("io.homa4j.core.internal.rpc"));
        for (String internal : core.getPackages()) {
            if (internal.contains(".internal")) {
                assertFalse(core.isExported(internal), internal);
            }
        }
        // The API links inside the layer: the endpoint class and the engine load from the modules' own loader.
        Class<?> endpoint = layer.findLoader("io.homa4j.netty").loadClass("io.homa4j.HomaEndpoint");
        assertEquals(netty, endpoint.getModule());
        assertNotNull(endpoint.getMethod("builder"));
        assertEquals(core, layer.findLoader("io.homa4j.core").loadClass("io.homa4j.core.HomaEngine").getModule());
    }

    private static Set<String> exports(Module module) {
        Set<String> exported = new TreeSet<>();
        for (ModuleDescriptor.Exports e : module.getDescriptor().exports()) {
            assertFalse(e.isQualified(), e.toString());
            exported.add(e.source());
        }
        return exported;
    }

    /**
     * The class path entries that are modules here: the two with a module-info (homa-core and homa-netty, as
     * directories or jars) and the jars of Netty and SLF4J; test classes, JUnit and the rest stay out.
     */
    private static List<Path> modulePath() throws Exception {
        List<Path> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String name = p.getFileName() == null ? "" : p.getFileName().toString();
            boolean homaModule = Files.isDirectory(p) ? Files.exists(p.resolve("module-info.class"))
                    : (name.startsWith("homa-core-") || name.startsWith("homa-netty-")) && hasModuleInfo(p);
            if (homaModule || name.startsWith("netty-") || name.startsWith("slf4j-api-")) {
                path.add(p);
            }
        }
        return path;
    }

    private static boolean hasModuleInfo(Path jar) throws Exception {
        if (!Files.isRegularFile(jar) || !jar.toString().endsWith(".jar")) {
            return false;
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.getEntry("module-info.class") != null;
        }
    }
}
