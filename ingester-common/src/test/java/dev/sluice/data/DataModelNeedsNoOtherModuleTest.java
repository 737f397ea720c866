package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The data model is pure: its module reads no module but {@code java.base} (no gRPC, no protobuf, no transport),
 * so a program that only builds tables has none of them on its module graph, and it exports the model packages
 * only.
 */
class DataModelNeedsNoOtherModuleTest {
    @Test
    void theModuleRequiresOnlyJavaBaseAndExportsTheModelPackages() throws Exception {
        Path classes = Path.of(Table.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor d;
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            d = ModuleDescriptor.read(in);
        }
        assertEquals("dev.sluice.common", d.name());
        assertEquals(Set.of("java.base"), d.requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toSet()));
        assertEquals(new TreeSet<>(Set.of("dev.sluice.data", "dev.sluice.mapping", "dev.sluice.write")),
                d.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toCollection(TreeSet::new)));
    }
}
