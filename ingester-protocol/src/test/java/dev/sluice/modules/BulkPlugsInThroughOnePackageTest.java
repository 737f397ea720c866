package dev.sluice.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The client's module descriptor, as built: its API packages are exported to everyone, and the bulk codec plugs
 * in through one internal package of its own, exported to the bulk module alone (the send engine is not); the client names the plug-in only as a service it uses.
 */
class BulkPlugsInThroughOnePackageTest {
    @Test
    void theClientExportsItsApiAndOneInternalPackageToTheBulkModuleOnly() {
        ModuleDescriptor d = ModuleFinder.of(Path.of("target", "classes")).find("dev.sluice.protocol")
                .orElseThrow(() -> new AssertionError("no dev.sluice.protocol in target/classes"))
                .descriptor();
        Map<String, Set<String>> exports = new TreeMap<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            exports.put(e.source(), e.isQualified() ? e.targets() : Set.of("*"));
        }
        assertEquals(Map.of("dev.sluice", Set.of("*"), "dev.sluice.bulk", Set.of("*"), "dev.sluice.metrics", Set.of("*"),
                "dev.sluice.internal.bulk.spi", Set.of("dev.sluice.bulk")), exports);
        assertEquals(Set.of("dev.sluice.internal.bulk.spi.BulkCodec"), d.uses());
        assertEquals(Set.of(), d.requires().stream().filter(r -> r.name().equals("dev.sluice.bulk"))
                .collect(java.util.stream.Collectors.toSet()), "the client does not require the bulk module");
    }
}
