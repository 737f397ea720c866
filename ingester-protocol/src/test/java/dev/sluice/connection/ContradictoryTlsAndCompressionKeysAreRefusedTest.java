package dev.sluice.connection;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import org.junit.jupiter.api.Test;

/**
 * A key whose meaning is unclear (no value, a blank around {@code false}, a compression the chosen path cannot
 * use) is refused naming the key, rather than read one way silently.
 */
class ContradictoryTlsAndCompressionKeysAreRefusedTest {
    private static IllegalArgumentException refused(String connection) {
        return assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.parse(connection),
                () -> "accepted: " + connection + " -> " + ConnectionConfig.parse(connection).options().tls());
    }

    @Test
    void tlsFalseWrittenWithABlankStillContradictsATlsKey() {
        IllegalArgumentException e = refused("greptimedb://h:4001/db?tls=%20false&tls_server_name=x");
        assertTrue(e.getMessage().contains("tls_server_name"), e.getMessage());
    }

    @Test
    void lz4OnTheRegularPathIsRefusedNamingCompression() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h:4001/db?write_path=regular&compression=lz4"));
        assertTrue(e.getMessage().contains("compression"), e.getMessage());
    }
}
