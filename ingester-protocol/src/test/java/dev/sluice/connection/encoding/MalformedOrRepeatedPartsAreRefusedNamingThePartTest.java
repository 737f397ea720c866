package dev.sluice.connection.encoding;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import org.junit.jupiter.api.Test;

/**
 * A connection string whose percent-escapes do not spell UTF-8, or which names one host or one hint twice, is
 * refused naming the part, rather than read as something the user did not write (a replacement character in a
 * password, a hint silently replaced by its twin, a host written twice).
 */
class MalformedOrRepeatedPartsAreRefusedNamingThePartTest {
    private static IllegalArgumentException refused(String connection) {
        return assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.parse(connection),
                () -> "accepted: " + connection);
    }

    @Test
    void aValueWhoseEscapesAreNotUtf8IsRefusedNamingItsKey() {
        IllegalArgumentException e = refused("greptimedb://db1:4001/public?hint.ttl=%FF7d");
        assertTrue(e.getMessage().contains("hint.ttl"), e.getMessage());
    }

    @Test
    void aDatabaseWhoseEscapesAreNotUtf8IsRefusedNamingTheDatabase() {
        IllegalArgumentException e = refused("greptimedb://db1:4001/m%C3%28trics");
        assertTrue(e.getMessage().contains("database"), e.getMessage());
    }

    @Test
    void aPasswordWhoseEscapesAreNotUtf8IsRefusedWithoutShowingIt() {
        IllegalArgumentException e = refused("greptimedb://ingest:s3cr%E9tvalue@db1:4001/public");
        assertTrue(e.getMessage().contains("password"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cr"), e.getMessage());
    }

    @Test
    void aHintNamedTwiceOnceWithABlankIsRefusedNamingIt() {
        // Hint names are trimmed before they are sent: "ttl " and "ttl" are one hint, given twice.
        IllegalArgumentException e = refused("greptimedb://db1:4001/public?hint.ttl=7d&hint.ttl%20=1d");
        assertTrue(e.getMessage().contains("hint.ttl"), e.getMessage());
    }

    @Test
    void aHostNamedTwiceIsRefusedNamingIt() {
        IllegalArgumentException e = refused("greptimedb://db1:4001,db1/public");
        assertTrue(e.getMessage().contains("db1"), e.getMessage());
    }
}
