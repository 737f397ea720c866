package dev.sluice.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.Compression;
import org.junit.jupiter.api.Test;

/** A compression is read from its name in one place; a misspelt name is refused, never taken as none. */
class CompressionNamesTest {
    @Test
    void everyNameReadsBackWhateverItsCaseAndSurroundingBlanks() {
        for (Compression c : Compression.values()) {
            assertEquals(c, Compression.parse(c.settingName()));
            assertEquals(c, Compression.parse(" " + c.settingName().toUpperCase() + " "));
        }
        assertEquals(Compression.Zstd, Compression.parse("ZStd"));
    }

    @Test
    void anUnknownNameIsRefusedNamingItAndTheAcceptedOnes() {
        for (String bad : new String[] {"snappy", "zstandard", "", "  ", null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Compression.parse(bad));
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("none, gzip, zstd, lz4"), e.getMessage());
        }
    }
}
