package dev.sluice.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ConnectionConfig;
import dev.sluice.write.Compression;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The string read from the environment or a system property obeys the same rules as one parsed directly: unknown
 * keys, repeated keys and contradictions are refused naming the key, and the password never shows.
 */
class ConnectionStringRulesNameTheKeyWhereverTheStringComesFromTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static IllegalArgumentException fromEnv(Map<String, String> env, Properties p) {
        return assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.fromEnvironment(env, p));
    }

    @Test
    void anUnknownKeyFromTheVariableIsRefusedNamingIt() {
        IllegalArgumentException e = fromEnv(Map.of(ConnectionConfig.VARIABLE, "greptimedb://h/db?compresion=zstd"),
                props());
        assertTrue(e.getMessage().contains("'compresion'"), e.getMessage());
    }

    @Test
    void aKeyGivenTwiceInThePropertyIsRefusedNamingIt() {
        IllegalArgumentException e = fromEnv(Map.of(), props(ConnectionConfig.PROPERTY,
                "greptimedb://h/db?request_timeout=1s&request_timeout=2s"));
        assertTrue(e.getMessage().contains("'request_timeout'"), e.getMessage());
    }

    @Test
    void theSystemPropertyWinsOverTheVariable() {
        ConnectionConfig c = ConnectionConfig.fromEnvironment(
                Map.of(ConnectionConfig.VARIABLE, "greptimedb://fromenv:4001/a?compression=gzip"),
                props(ConnectionConfig.PROPERTY, "greptimedb://fromprop:4002/b?compression=zstd"));
        assertEquals(List.of("fromprop:4002"), c.endpoints());
        assertEquals("b", c.database());
        assertEquals(Compression.Zstd, c.context().compression());
    }

    @Test
    void aPasswordGivenTwiceIsRefusedWithoutShowingEither() {
        IllegalArgumentException e = fromEnv(Map.of(ConnectionConfig.VARIABLE, "greptimedb://u:inline9@h/db",
                ConnectionConfig.PASSWORD_VARIABLE, "apart77"), props());
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
        assertFalse(e.getMessage().contains("inline9") || e.getMessage().contains("apart77"), e.getMessage());
    }

    @Test
    void aSeparatePasswordReachesTheCredentials() {
        ConnectionConfig c = ConnectionConfig.fromEnvironment(Map.of(ConnectionConfig.VARIABLE, "greptimedb://u@h/db"),
                props(ConnectionConfig.PASSWORD_PROPERTY, "pw"));
        assertEquals("u", c.options().authInfo().username());
        assertEquals("pw", c.options().authInfo().password());
        assertFalse(c.toString().contains("pw@"), c.toString());
    }

    @Test
    void aClientCertificateWithoutItsKeyIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h/db?tls_cert=/c.pem"));
        assertTrue(e.getMessage().contains("tls_cert"), e.getMessage());
    }

    @Test
    void tlsFalseBesideATlsKeyIsRefusedWhateverItsCase() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h/db?tls=FALSE&tls_server_name=x"));
        assertTrue(e.getMessage().contains("tls_server_name"), e.getMessage());
    }

    @Test
    void aBackoffLongerThanItsCapIsRefusedNamingARetryKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h/db?retry_backoff=10s&retry_backoff_max=1s"));
        assertTrue(e.getMessage().contains("retry_backoff"), e.getMessage());
    }

    @Test
    void aCompressionNameMeansTheSameWhateverItsCaseInTheString() {
        assertEquals(Compression.Gzip, ConnectionConfig.parse("greptimedb://h/db?compression=GZIP").context()
                .compression());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionConfig.parse("greptimedb://h/db?compression=snappy"));
        assertTrue(e.getMessage().contains("'compression'") && e.getMessage().contains("snappy"), e.getMessage());
    }

    @Test
    void everyDurationKeyTakesEffect() {
        ConnectionConfig c = ConnectionConfig.parse("greptimedb://h/db?request_timeout=7s&retry_timeout=3m"
                + "&health_check_interval=0s&max_block=9s&flush_interval=70ms");
        assertEquals(Duration.ofSeconds(7), c.options().requestTimeout());
        assertEquals(Duration.ofMinutes(3), c.options().retryPolicy().deliveryTimeout());
        assertEquals(Duration.ZERO, c.options().healthCheckInterval());
        assertEquals(Duration.ofSeconds(9), c.options().maxBlock());
        assertEquals(Duration.ofSeconds(9), c.batching().maxBlock());
        assertEquals(Duration.ofMillis(70), c.batching().flushInterval());
        assertNull(c.options().tls());
    }
}
