// Every public method of the public classes of dev.acd (and dev.acd.testing)
// has a plain JVM name: none carries the `-xxxxxxx` suffix Kotlin adds to a
// member taking or answering an inline class (kotlin.time.Duration), which
// Java cannot call. Read by reflection over the compiled SDK classes (the
// jar, or the classes directory the build tests before packing it).
package acdtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.acd.AcdHttpClient;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class NoMangledNamesTest {
    /** The class files under dev/acd/ where the SDK was loaded from, as class names. */
    private static List<String> sdkClassNames() throws IOException, URISyntaxException {
        Path root = Path.of(AcdHttpClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> files;
        if (Files.isDirectory(root)) {
            try (Stream<Path> walk = Files.walk(root.resolve("dev/acd"))) {
                files = walk.map(path -> root.relativize(path).toString().replace('\\', '/')).collect(Collectors.toList());
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                files = jar.stream().map(entry -> entry.getName()).collect(Collectors.toList());
            }
        }
        return files.stream()
            .filter(name -> name.startsWith("dev/acd/") && name.endsWith(".class"))
            .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
            .collect(Collectors.toList());
    }

    @Test
    void noPublicMethodNameHasAManglingSuffix() throws Exception {
        List<String> mangled = new ArrayList<>();
        int publicClasses = 0;
        for (String name : sdkClassNames()) {
            Class<?> type = Class.forName(name, false, AcdHttpClient.class.getClassLoader());
            if (!Modifier.isPublic(type.getModifiers()) || type.isSynthetic() || type.isAnonymousClass()) {
                continue;
            }
            publicClasses++;
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isPublic(method.getModifiers()) && method.getName().contains("-")) {
                    mangled.add(type.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertTrue(publicClasses > 20, "the SDK's classes were found (" + publicClasses + ")");
        assertEquals(List.of(), mangled);
    }
}
