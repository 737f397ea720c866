package dev.sluice.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.WhenFull;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * One string configures the client, its batching writers and the per-call context; every value goes through the
 * builders' own checks, and a wrong one is refused naming its key without ever showing the password.
 */
class ConnectionStringTest {
    private static IllegalArgumentException refused(String connection) {
        return assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.parse(connection));
    }

    @Test
    void everyPartAndKeyReachesItsSetting() {
        ConnectionConfig c = ConnectionConfig.parse("greptimedb://ingest:p%40ss%3Aw+rd@db1:4101,db2/my%20db"
                + "?tls=true&tls_ca=/etc/ca.pem&tls_server_name=greptime.internal&timezone=+08:00"
                + "&request_timeout=30s&retry_attempts=5&retry_backoff=200ms&retry_backoff_max=2s&retry_timeout=1m"
                + "&health_check_interval=0s&max_message_size=32MiB&max_in_flight_bytes=512MiB"
                + "&max_in_flight_requests=64&when_full=fail_fast&max_block=1s&compression=zstd&write_path=bulk"
                + "&batch_rows=500&batch_bytes=1MiB&flush_interval=50ms&batch_in_flight=8&buffer_rows=5000"
                + "&ordered_per_table=true&hint.ttl=7d&hint.append_mode=true");
        GreptimeOptions o = c.options();
        assertEquals(List.of("db1:4101", "db2:4001"), o.endpoints());
        assertEquals("my db", o.database());
        assertEquals("ingest", o.authInfo().username());
        assertEquals("p@ss:w+rd", o.authInfo().password());
        assertEquals(Path.of("/etc/ca.pem"), o.tls().trustCertificates());
        assertEquals("greptime.internal", o.tls().serverNameOverride());
        assertEquals("+08:00", o.timezone());
        assertEquals(Duration.ofSeconds(30), o.requestTimeout());
        assertEquals(5, o.retryPolicy().maxAttempts());
        assertEquals(Duration.ofMillis(200), o.retryPolicy().initialBackoff());
        assertEquals(Duration.ofSeconds(2), o.retryPolicy().maxBackoff());
        assertEquals(Duration.ofMinutes(1), o.retryPolicy().deliveryTimeout());
        assertEquals(Duration.ZERO, o.healthCheckInterval());
        assertEquals(32 << 20, o.maxMessageSize());
        assertEquals(512L << 20, o.maxInFlightBytes());
        assertEquals(64, o.maxInFlightRequests());
        assertEquals(WhenFull.FailFast, o.whenFull());
        assertEquals(Duration.ofSeconds(1), o.maxBlock());

        BatchingWriter.Config b = c.batching();
        assertEquals(BatchingWriter.Path.Bulk, b.path());
        assertEquals(500, b.maxBatchRows());
        assertEquals(1L << 20, b.maxBatchBytes());
        assertEquals(Duration.ofMillis(50), b.flushInterval());
        assertEquals(8, b.maxInFlightRequests());
        assertEquals(5000, b.maxBufferedRows());
        assertTrue(b.orderedPerTable());
        assertEquals(WhenFull.FailFast, b.whenFull());
        assertEquals(Duration.ofSeconds(1), b.maxBlock());

        Context ctx = c.context();
        assertEquals(Compression.Zstd, ctx.compression());
        assertEquals(Map.of("ttl", "7d", "append_mode", "true"), ctx.hints());
    }

    @Test
    void aBareHostMeansPort4001DatabasePublicAndNoCredentials() {
        ConnectionConfig c = ConnectionConfig.parse("greptimedb://localhost");
        GreptimeOptions o = c.options();
        assertEquals(List.of("localhost:4001"), o.endpoints());
        assertEquals("public", o.database());
        assertNull(o.authInfo());
        assertNull(o.tls());
        GreptimeOptions defaults = GreptimeOptions.newBuilder("localhost:4001", "public").build();
        assertEquals(defaults.requestTimeout(), o.requestTimeout());
        assertEquals(BatchingWriter.Config.newBuilder().build().toString(), c.batching().toString());
        assertEquals(Compression.None, c.context().compression());
    }

    @Test
    void ipv6HostsAreWrittenInBrackets() {
        ConnectionConfig c = ConnectionConfig.parse("GreptimeDB://[::1],[fe80::1]:5001/db");
        assertEquals(List.of("[::1]:4001", "[fe80::1]:5001"), c.options().endpoints());
        IllegalArgumentException e = refused("greptimedb://fe80::1/db");
        assertTrue(e.getMessage().contains("brackets"), e.getMessage());
        assertTrue(refused("greptimedb://[::1/db").getMessage().contains("'['"));
    }

    @Test
    void unknownRepeatedOrValuelessKeysAreRefusedNamingTheKeyNotItsValue() {
        IllegalArgumentException unknown = refused("greptimedb://h/db?pasword=s3cret");
        assertTrue(unknown.getMessage().contains("'pasword'"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("request_timeout"), "lists the keys: " + unknown.getMessage());
        assertFalse(unknown.getMessage().contains("s3cret"), unknown.getMessage());
        assertTrue(refused("greptimedb://h/db?batch_rows=1&batch_rows=2").getMessage().contains("'batch_rows' is given"
                + " twice"));
        assertTrue(refused("greptimedb://h/db?tls").getMessage().contains("'tls' of the connection string has no"
                + " value"));
    }

    @Test
    void contradictionsAreRefusedNamingTheKey() {
        IllegalArgumentException e = refused("greptimedb://h/db?tls=false&tls_ca=/ca.pem");
        assertTrue(e.getMessage().contains("'tls_ca' contradicts tls=false"), e.getMessage());
        e = refused("greptimedb://h/db?tls_cert=/c.pem");
        assertTrue(e.getMessage().contains("'tls_cert' needs its partner"), e.getMessage());
        e = refused("greptimedb://h/db?batch_rows=100&buffer_rows=10");
        assertTrue(e.getMessage().contains("batch_rows") && e.getMessage().contains("buffer_rows"), e.getMessage());
        e = refused("greptimedb://h/db?retry_backoff=10s&retry_backoff_max=1s");
        assertTrue(e.getMessage().contains("retry_backoff"), e.getMessage());
    }

    @Test
    void aBadValueIsRefusedByTheBuildersCheckNamingTheKey() {
        IllegalArgumentException e = refused("greptimedb://h/db?request_timeout=0s");
        assertTrue(e.getMessage().startsWith("connection string key 'request_timeout': requestTimeout must be"
                + " positive"), e.getMessage());
        e = refused("greptimedb://h/db?request_timeout=5x");
        assertTrue(e.getMessage().contains("'request_timeout'") && e.getMessage().contains("30s"), e.getMessage());
        e = refused("greptimedb://h/db?compression=snappy");
        assertTrue(e.getMessage().contains("'compression'") && e.getMessage().contains("none, gzip, zstd, lz4"),
                e.getMessage());
        e = refused("greptimedb://h/db?max_message_size=1");
        assertTrue(e.getMessage().contains("'max_message_size'"), e.getMessage());
        e = refused("greptimedb://h/db?write_path=fast");
        assertTrue(e.getMessage().contains("'write_path'") && e.getMessage().contains("regular or bulk"),
                e.getMessage());
        e = refused("greptimedb://h:70000/db");
        assertTrue(e.getMessage().contains("invalid port"), e.getMessage());
        assertTrue(refused("http://h:4000/db").getMessage().contains("must start with greptimedb://"));
    }

    @Test
    void thePasswordIsNeverShown() {
        ConnectionConfig c = ConnectionConfig.parse("greptimedb://u:s3cret@h/db?compression=gzip");
        assertFalse(c.toString().contains("s3cret"), c.toString());
        assertTrue(c.toString().contains("u:***@"), c.toString());
        assertFalse(c.options().toString().contains("s3cret"), c.options().toString());
        for (String bad : List.of("greptimedb://u:s3cret@h:x/db", "greptimedb://u:s3cret%zz@h/db",
                "greptimedb://u:s3cret@h/db?tls=maybe", "greptimedb://:s3cret@h/db")) {
            IllegalArgumentException e = refused(bad);
            assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        }
    }

    @Test
    void applyingTheStringChangesOnlyTheSettingsItNames() {
        ConnectionConfig c = ConnectionConfig.parse("greptimedb://h/db?compression=lz4&batch_rows=7");
        GreptimeOptions.Builder ob = GreptimeOptions.newBuilder(c.endpoints(), c.database())
                .requestTimeout(Duration.ofSeconds(5));
        assertEquals(Duration.ofSeconds(5), c.applyTo(ob).build().requestTimeout());
        BatchingWriter.Config bc = c.applyTo(BatchingWriter.Config.newBuilder().maxBufferedRows(50_000)
                .orderedPerTable(true)).build();
        assertEquals(7, bc.maxBatchRows());
        assertEquals(50_000, bc.maxBufferedRows());
        assertTrue(bc.orderedPerTable());
        Context ctx = c.applyTo(Context.newBuilder().hint("ttl", "1d")).build();
        assertEquals(Compression.Lz4, ctx.compression());
        assertEquals(Map.of("ttl", "1d"), ctx.hints());
        assertTrue(c.has("compression"));
        assertFalse(c.has("request_timeout"));
    }

    @Test
    void theEnvironmentGivesTheStringAndMayKeepThePasswordApart() {
        Properties none = new Properties();
        ConnectionConfig fromVariable = ConnectionConfig.fromEnvironment(
                Map.of(ConnectionConfig.VARIABLE, "greptimedb://u@env-host/db", ConnectionConfig.PASSWORD_VARIABLE, "pw"),
                none);
        assertEquals(List.of("env-host:4001"), fromVariable.endpoints());
        assertEquals("pw", fromVariable.options().authInfo().password());

        Properties props = new Properties();
        props.setProperty(ConnectionConfig.PROPERTY, "greptimedb://prop-host");
        ConnectionConfig fromProperty = ConnectionConfig.fromEnvironment(
                Map.of(ConnectionConfig.VARIABLE, "greptimedb://env-host"), props);
        assertEquals(List.of("prop-host:4001"), fromProperty.endpoints(), "the system property wins");

        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> ConnectionConfig.fromEnvironment(Map.of(), none));
        assertTrue(missing.getMessage().contains(ConnectionConfig.VARIABLE), missing.getMessage());

        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> ConnectionConfig
                .fromEnvironment(Map.of(ConnectionConfig.VARIABLE, "greptimedb://u:s3cret@h",
                        ConnectionConfig.PASSWORD_VARIABLE, "other"), none));
        assertTrue(twice.getMessage().contains("given twice"), twice.getMessage());
        assertFalse(twice.getMessage().contains("s3cret") || twice.getMessage().contains("other"), twice.getMessage());

        IllegalArgumentException noUser = assertThrows(IllegalArgumentException.class, () -> ConnectionConfig
                .fromEnvironment(Map.of(ConnectionConfig.VARIABLE, "greptimedb://h",
                        ConnectionConfig.PASSWORD_VARIABLE, "pw"), none));
        assertTrue(noUser.getMessage().contains("names no user"), noUser.getMessage());
    }
}
