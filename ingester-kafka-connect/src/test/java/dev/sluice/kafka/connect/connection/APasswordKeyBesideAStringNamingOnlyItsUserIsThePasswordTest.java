package dev.sluice.kafka.connect.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code greptimedb.connection} may name its user without a password ({@code greptimedb://user@host}):
 * {@code greptimedb.password} beside it sets nothing the string sets, so it is the user's password rather than a
 * clash with the string's (absent) {@code user:password@}.
 */
class APasswordKeyBesideAStringNamingOnlyItsUserIsThePasswordTest {
    @Test
    void thePasswordKeyIsTheStringUsersPassword() {
        GreptimeSinkConfig cfg = new GreptimeSinkConfig(Map.of(
                GreptimeSinkConfig.CONNECTION_STRING, "greptimedb://ingest@db1:4001/metrics",
                GreptimeSinkConfig.PASSWORD, "Sup3rSecret"));
        assertEquals("ingest", cfg.username());
        assertEquals("Sup3rSecret", cfg.password());
    }
}
