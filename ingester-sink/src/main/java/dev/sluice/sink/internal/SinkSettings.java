package dev.sluice.sink.internal;

import dev.sluice.AuthInfo;
import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.GreptimeOptions;
import dev.sluice.TlsConfig;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything a sink writer needs to reach GreptimeDB and batch rows, in a form an engine can serialize into its job
 * (Flink's job graph, Spark's tasks). Flink's DataStream builder and SQL factory, Spark's write options and the Kafka
 * Connect sink's settings produce one; {@link SinkClients#open(SinkSettings, MetricsSink, boolean)} turns them into the client's settings.
 *
 * <p>With a connection string ({@link #connect(String)}), the string's keys are applied over the separate settings
 * by {@link ConnectionConfig}, and these fields hold the outcome: what the client is opened with. Keys with no field
 * here ({@code max_message_size}, {@code health_check_interval}...) take effect when the client is opened.
 *
 * @param endpoints gRPC endpoints, {@code host:port}
 * @param database database name
 * @param username user for basic auth, or empty
 * @param password password, or empty
 * @param tls whether to use TLS
 * @param tlsCa PEM file of the CA to trust, or empty for the system's
 * @param tlsCert client certificate chain (PEM) for mutual TLS, or empty
 * @param tlsKey client private key (PEM), or empty
 * @param tlsServerName server name override, or empty
 * @param timezone request timezone
 * @param requestTimeout deadline of one call attempt
 * @param retryAttempts attempts per request (0: until the delivery timeout)
 * @param retryBackoff first backoff
 * @param retryMaxBackoff longest backoff
 * @param deliveryTimeout how long the client keeps retrying one batch before the job fails
 * @param path regular or bulk
 * @param batchRows rows that make a batch full
 * @param batchBytes approximate bytes that make a batch full
 * @param flushInterval longest time a row waits in a batch
 * @param maxInFlightRequests batches sent and unanswered per table
 * @param bufferRows rows buffered or in flight per writer before {@code write} waits
 * @param compression none, gzip, zstd or lz4
 * @param hints hints of every write ({@code ttl}, {@code append_mode}, {@code merge_mode}...)
 * @param httpEndpoint GreptimeDB's HTTP API ({@code host:port} or a URL) where a writer reads an existing table's
 *     columns when it starts; empty for the first endpoint's host at port 4000, {@code none} to not read them
 * @param connection a connection string whose keys are applied over the other settings, or empty for none
 * @param wording the integration's words in failures: its option names and what its job does next
 */
public record SinkSettings(List<String> endpoints, String database, String username, String password, boolean tls,
                           String tlsCa, String tlsCert, String tlsKey, String tlsServerName, String timezone,
                           Duration requestTimeout, int retryAttempts, Duration retryBackoff, Duration retryMaxBackoff,
                           Duration deliveryTimeout, BatchingWriter.Path path, int batchRows, long batchBytes,
                           Duration flushInterval, int maxInFlightRequests, long bufferRows, String compression,
                           Map<String, String> hints, String httpEndpoint, String connection, Wording wording)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Checks the settings. */
    public SinkSettings {
        endpoints = List.copyOf(endpoints);
        hints = Map.copyOf(hints);
        httpEndpoint = httpEndpoint == null ? "" : httpEndpoint.strip();
        connection = connection == null ? "" : connection.strip();
        if (wording == null) {
            throw new IllegalArgumentException("the integration's wording of failures is required");
        }
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("at least one endpoint (host:port) is required");
        }
        for (String e : endpoints) {
            int colon = e.lastIndexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw new IllegalArgumentException("endpoint '" + e + "' is not host:port (e.g. 127.0.0.1:4001)");
            }
        }
        if (database == null || database.isBlank()) {
            throw new IllegalArgumentException("database must not be empty (GreptimeDB's default is 'public')");
        }
        if (batchRows < 1 || batchBytes < 1 || maxInFlightRequests < 1 || bufferRows < batchRows) {
            throw new IllegalArgumentException("batch rows, batch bytes and in-flight batches must be positive and"
                    + " the buffer must hold at least one batch (batch rows " + batchRows + ", buffer rows "
                    + bufferRows + ")");
        }
        if (retryAttempts < 0) {
            throw new IllegalArgumentException("retry attempts cannot be negative, got " + retryAttempts);
        }
        if (Compression.parse(compression) == Compression.Lz4 && path != BatchingWriter.Path.Bulk) {
            throw new IllegalArgumentException("compression lz4 (" + wording.key("compression") + ") applies to the"
                    + " bulk write path only, but the write path (" + wording.key("write_path") + ") is "
                    + (path == null ? "unset" : path.name().toLowerCase(Locale.ROOT)) + ": set "
                    + wording.key("compression") + " to zstd, gzip or none, or " + wording.key("write_path")
                    + " to bulk");
        }
    }

    /** @return the password hidden */
    @Override
    public String toString() {
        return "SinkSettings[endpoints=" + endpoints + ", database=" + database + ", username=" + username
                + ", tls=" + tls + ", path=" + path + ", batchRows=" + batchRows + ", batchBytes=" + batchBytes
                + ", flushInterval=" + flushInterval + ", maxInFlightRequests=" + maxInFlightRequests + ", hints="
                + hints + ", httpEndpoint=" + httpEndpoint + "]";
    }

    /**
     * Applies a connection string over these settings: every key it names replaces the separate setting (whether a
     * setting given both ways is refused is the integration's rule, checked before), the rest stay; a password set
     * here beside a string naming only its user is that user's password.
     *
     * @param text the connection string, {@code greptimedb://...}
     * @return the settings the client is opened with, keeping the string for the keys no field here holds
     * @throws IllegalArgumentException naming the key when the string is malformed or a value does not fit
     */
    public SinkSettings connect(String text) {
        ConnectionConfig c = ConnectionConfig.parse(text);
        if (c.hasUser() && !c.hasPassword() && !password.isEmpty()) {
            // A string naming only its user: the password set apart is that user's.
            c = c.withPassword(password, wording.key("password") + " setting");
        }
        GreptimeOptions.Builder ob = GreptimeOptions.newBuilder(c.endpoints(), c.database());
        clientOptions(ob, MetricsSink.NONE);
        GreptimeOptions o = c.applyTo(ob).build();
        Context ctx = c.applyTo(context()).build();
        BatchingWriter.Config w = c.applyTo(batching()).build();
        AuthInfo auth = o.authInfo();
        String pass = auth == null ? "" : auth.password();
        TlsConfig t = o.tls();
        RetryPolicy r = o.retryPolicy();
        return new SinkSettings(o.endpoints(), o.database(), auth == null ? "" : auth.username(), pass, t != null, t == null ? "" : text(t.trustCertificates()),
                t == null ? "" : text(t.clientCertificateChain()), t == null ? "" : text(t.clientPrivateKey()),
                t == null || t.serverNameOverride() == null ? "" : t.serverNameOverride(), o.timezone(),
                o.requestTimeout(), r.maxAttempts() == Integer.MAX_VALUE ? 0 : r.maxAttempts(), r.initialBackoff(),
                r.maxBackoff(), r.deliveryTimeout(), w.path(), w.maxBatchRows(), w.maxBatchBytes(), w.flushInterval(),
                w.maxInFlightRequests(), w.maxBufferedRows(), ctx.compression().settingName(), ctx.hints(), httpEndpoint,
                text, wording);
    }

    private static String text(Path p) {
        return p == null ? "" : p.toString();
    }

    /**
     * Sets the client's settings these hold on a builder made with their endpoints and database: credentials, TLS,
     * timezone, timeouts and retries.
     *
     * @param b the builder
     * @param metrics where the client's counters go
     * @return {@code b}
     */
    GreptimeOptions.Builder clientOptions(GreptimeOptions.Builder b, MetricsSink metrics) {
        b.requestTimeout(requestTimeout).timezone(timezone).metrics(metrics)
                .retryPolicy(RetryPolicy.newBuilder().maxAttempts(retryAttempts == 0 ? Integer.MAX_VALUE : retryAttempts)
                        .backoff(retryBackoff, retryMaxBackoff).multiplier(2.0).deliveryTimeout(deliveryTimeout)
                        .build());
        if (!username.isEmpty()) {
            b.authInfo(new AuthInfo(username, password));
        }
        TlsConfig t = SinkClients.tls(tls, tlsCa, tlsCert, tlsKey, tlsServerName);
        if (t != null) {
            b.tls(t);
        }
        return b;
    }

    /** @return the per-call context's builder: compression and hints */
    Context.Builder context() {
        Context.Builder b = Context.newBuilder().compression(Compression.parse(compression));
        hints.forEach(b::hint);
        return b;
    }

    /** @return the batching writer's builder; a full buffer waits at most one request's timeout */
    BatchingWriter.Config.Builder batching() {
        return BatchingWriter.Config.newBuilder().maxBatchRows(batchRows).maxBatchBytes(batchBytes)
                .flushInterval(flushInterval).maxInFlightRequests(maxInFlightRequests).maxBufferedRows(bufferRows)
                .maxBlock(requestTimeout).path(path);
    }

    /** @return how long a flush may wait: every batch's full delivery budget plus one call */
    public Duration flushBound() {
        return deliveryTimeout.plus(requestTimeout).plus(Duration.ofSeconds(30));
    }

    /**
     * The words of the integration running the session, so that a failure names options the user can set and says
     * what the user's job does next.
     *
     * @param retryTimeoutOption the option that bounds how long a batch is retried, e.g. {@code sink.retry.timeout}
     * @param afterFailure the sentence saying what the job does after a write failed for good, e.g. that the engine
     *     restarts it from its last checkpoint
     * @param rerunAfterFix what to do once the data or the table is fixed, completing "fix the data or the table,
     *     then ...", e.g. {@code restart the job}
     * @param keys the integration's name of a setting, by the connection string's key for it (e.g.
     *     {@code compression} to {@code write.compression}); a key not named here is called as the string calls it
     */
    public record Wording(String retryTimeoutOption, String afterFailure, String rerunAfterFix, Map<String, String> keys)
            implements Serializable {
        private static final long serialVersionUID = 1L;

        /** Checks that every word is given. */
        public Wording {
            if (retryTimeoutOption == null || retryTimeoutOption.isBlank() || afterFailure == null
                    || afterFailure.isBlank() || rerunAfterFix == null || rerunAfterFix.isBlank()) {
                throw new IllegalArgumentException("the retry timeout option, the sentence after a failure and the"
                        + " step after a fix must all be given");
            }
            keys = Map.copyOf(keys);
        }

        /**
         * Words with every setting called as the connection string calls it.
         *
         * @param retryTimeoutOption as {@link Wording}'s
         * @param afterFailure as {@link Wording}'s
         * @param rerunAfterFix as {@link Wording}'s
         */
        public Wording(String retryTimeoutOption, String afterFailure, String rerunAfterFix) {
            this(retryTimeoutOption, afterFailure, rerunAfterFix, Map.of());
        }

        /**
         * Names a setting as the integration calls it.
         *
         * @param connectionKey the connection string's key for the setting
         * @return the integration's name for it
         */
        public String key(String connectionKey) {
            return keys.getOrDefault(connectionKey, connectionKey);
        }
    }
}
