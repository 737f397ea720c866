package dev.sluice.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import dev.sluice.write.Compression;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A compression's name reads the same in code and in a connection string, whatever its case and surrounding
 * blanks, and each compression's own setting name reads back as itself; anything else is refused naming the
 * accepted names.
 */
class CompressionNamesMeanTheSameWhateverTheirCaseTest {
    @Test
    void everySettingNameReadsBackAsItsCompressionInAnyCase() {
        for (Compression c : Compression.values()) {
            String name = c.settingName();
            assertEquals(c, Compression.parse(name));
            assertEquals(c, Compression.parse(name.toUpperCase(java.util.Locale.ROOT)));
            assertEquals(c, Compression.parse("\t" + name + " "));
            assertEquals(c, ConnectionConfig.parse("greptimedb://h?compression=%20" + name.toUpperCase(
                    java.util.Locale.ROOT)).context().compression());
        }
    }

    @Test
    void misspeltEmptyAndNullNamesAreRefusedListingTheAcceptedOnes() {
        for (String bad : Arrays.asList("snappy", "", "  ", null, "zstd1", "gz", "no ne", "deflate")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Compression.parse(bad),
                    "refused: " + bad);
            for (String accepted : List.of("none", "gzip", "zstd", "lz4")) {
                assertTrue(e.getMessage().contains(accepted), e.getMessage());
            }
        }
    }
}
