package dev.sluice.connection;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import org.junit.jupiter.api.Test;

/**
 * A key written without a value (a text key or a hint) is refused naming the key, rather than read with a made-up
 * value.
 */
class AmbiguousConnectionStringKeysAreRefusedNamingTheKeyTest {
    private static IllegalArgumentException refused(String connection) {
        return assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.parse(connection),
                () -> "accepted: " + connection + " -> " + ConnectionConfig.parse(connection).options().tls());
    }

    @Test
    void aTextKeyWithoutAValueIsRefusedNamingIt() {
        IllegalArgumentException e = refused("greptimedb://h:4001/db?tls_server_name");
        assertTrue(e.getMessage().contains("tls_server_name"), e.getMessage());
    }

    @Test
    void aHintWithoutAValueIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h:4001/db?hint.ttl"),
                () -> "accepted, hints: " + ConnectionConfig.parse("greptimedb://h:4001/db?hint.ttl").context()
                        .hints());
        assertTrue(e.getMessage().contains("hint.ttl"), e.getMessage());
    }
}
