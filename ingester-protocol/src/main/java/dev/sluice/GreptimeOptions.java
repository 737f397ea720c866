package dev.sluice;

import dev.sluice.metrics.MetricsSink;
import dev.sluice.metrics.MicrometerMetricsSink;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WhenFull;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Everything a {@link GreptimeDB} client is configured with. Immutable; build with
 * {@link #newBuilder(List, String)}.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>endpoints</td><td>(required)</td><td>{@code host:port} of GreptimeDB frontends (gRPC port, 4001 by default); writes go round-robin</td></tr>
 *   <tr><td>database</td><td>(required)</td><td>database (schema) name, or {@code catalog-schema}</td></tr>
 *   <tr><td>authInfo</td><td>none</td><td>basic-auth credentials, sent on every call</td></tr>
 *   <tr><td>timezone</td><td>"" (UTC)</td><td>request timezone, {@code +08:00} or an IANA name</td></tr>
 *   <tr><td>requestTimeout</td><td>60 s</td><td>deadline of each call (one attempt), from send to answer</td></tr>
 *   <tr><td>maxMessageSize</td><td>64 MiB</td><td>largest request the client sends; a larger regular write is sent as several requests of consecutive rows (each table apart) and answered once, with the sum or the failed part; only a single row larger than this fails unsent</td></tr>
 *   <tr><td>maxInboundMessageSize</td><td>64 MiB</td><td>largest answer accepted</td></tr>
 *   <tr><td>callbackExecutor</td><td>a client-owned pool of daemon threads</td><td>where write futures complete (never a gRPC I/O thread while it accepts tasks)</td></tr>
 *   <tr><td>retryPolicy</td><td>{@code RetryPolicy.newBuilder().build()}</td><td>retries of failed writes (per call: {@link Context.Builder#retryPolicy})</td></tr>
 *   <tr><td>healthCheckInterval</td><td>5 s</td><td>how often each endpoint is checked; 0 turns checks off</td></tr>
 *   <tr><td>tls</td><td>none (plaintext)</td><td>{@link TlsConfig}: trust, mutual TLS, server name</td></tr>
 *   <tr><td>maxInFlightBytes</td><td>256 MiB</td><td>encoded bytes waiting to be sent or unanswered, client-wide: regular
 *       requests (retries included) until answered, stream messages until sent or, when kept for a replay, until
 *       the stream is answered, and bulk batches until answered. A message larger than the budget takes all of it</td></tr>
 *   <tr><td>maxInFlightRequests</td><td>1,024</td><td>regular requests in flight (0 for no cap)</td></tr>
 *   <tr><td>whenFull</td><td>Block</td><td>when a limit is reached: wait for room (up to maxBlock) or fail at once</td></tr>
 *   <tr><td>metrics</td><td>{@link MetricsSink#NONE}</td><td>where the client reports rows, bytes, failures, retries, latencies and gauges; {@link MicrometerMetricsSink} publishes {@code sluice.*} meters to a Micrometer registry</td></tr>
 *   <tr><td>maxBlock</td><td>10 s</td><td>the longest wait for room; then the write fails with a {@link LimitExceededException}</td></tr>
 *   <tr><td>bufferCache</td><td>{@code BufferCache.newBuilder().build()}</td><td>released large transport and bulk buffers kept for the next messages and batches</td></tr>
 * </table>
 */
public final class GreptimeOptions {
    private final List<String> endpoints;
    private final String database;
    private final AuthInfo authInfo;
    private final String timezone;
    private final Duration requestTimeout;
    private final int maxMessageSize;
    private final int maxInboundMessageSize;
    private final Executor callbackExecutor;
    private final RetryPolicy retryPolicy;
    private final Duration healthCheckInterval;
    private final TlsConfig tls;
    private final long maxInFlightBytes;
    private final int maxInFlightRequests;
    private final WhenFull whenFull;
    private final Duration maxBlock;
    private final MetricsSink metrics;
    private final BufferCache bufferCache;

    private GreptimeOptions(Builder b) {
        this.bufferCache = b.bufferCache;
        this.retryPolicy = b.retryPolicy;
        this.healthCheckInterval = b.healthCheckInterval;
        this.tls = b.tls;
        this.maxInFlightBytes = b.maxInFlightBytes;
        this.maxInFlightRequests = b.maxInFlightRequests;
        this.whenFull = b.whenFull;
        this.maxBlock = b.maxBlock;
        this.metrics = b.metrics;
        this.endpoints = b.endpoints;
        this.database = b.database;
        this.authInfo = b.authInfo;
        this.timezone = b.timezone;
        this.requestTimeout = b.requestTimeout;
        this.maxMessageSize = b.maxMessageSize;
        this.maxInboundMessageSize = b.maxInboundMessageSize;
        this.callbackExecutor = b.callbackExecutor;
    }

    /**
     * Starts options for the given endpoints and database.
     *
     * @param endpoints {@code host:port} entries of GreptimeDB's gRPC port (4001 by default), at least one;
     *     no scheme ({@code http://} and the like are refused: TLS is set with {@link Builder#tls})
     * @param database the database to write to, e.g. {@code public}
     * @return a builder
     * @throws IllegalArgumentException for no endpoint, an endpoint that is not {@code host:port} (a URL
     *     among them), or no database
     */
    public static Builder newBuilder(List<String> endpoints, String database) {
        return new Builder(endpoints, database);
    }

    /**
     * Starts options for one endpoint and a database.
     *
     * @param endpoint {@code host:port} (the gRPC port, 4001 by default)
     * @param database the database to write to, e.g. {@code public}
     * @return a builder
     */
    public static Builder newBuilder(String endpoint, String database) {
        return new Builder(java.util.Collections.singletonList(endpoint), database);
    }

    /**
     * Starts a builder holding these options' values.
     *
     * @return a builder
     */
    public Builder toBuilder() {
        Builder b = new Builder(endpoints, database);
        b.authInfo = authInfo;
        b.timezone = timezone;
        b.requestTimeout = requestTimeout;
        b.maxMessageSize = maxMessageSize;
        b.maxInboundMessageSize = maxInboundMessageSize;
        b.callbackExecutor = callbackExecutor;
        b.retryPolicy = retryPolicy;
        b.healthCheckInterval = healthCheckInterval;
        b.tls = tls;
        b.maxInFlightBytes = maxInFlightBytes;
        b.maxInFlightRequests = maxInFlightRequests;
        b.whenFull = whenFull;
        b.maxBlock = maxBlock;
        b.metrics = metrics;
        b.bufferCache = bufferCache;
        return b;
    }

    /** @return the endpoints, {@code host:port} */
    public List<String> endpoints() {
        return endpoints;
    }

    /** @return the database name */
    public String database() {
        return database;
    }

    /** @return the credentials, or null */
    public AuthInfo authInfo() {
        return authInfo;
    }

    /** @return the request timezone, "" for the server default (UTC) */
    public String timezone() {
        return timezone;
    }

    /** @return the per-call deadline */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** @return the largest request size in bytes */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** @return the largest answer size in bytes */
    public int maxInboundMessageSize() {
        return maxInboundMessageSize;
    }

    /** @return the user's callback executor, or null for the client's own */
    public Executor callbackExecutor() {
        return callbackExecutor;
    }

    /** @return the default retry policy */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** @return the health check interval (zero: no checks) */
    public Duration healthCheckInterval() {
        return healthCheckInterval;
    }

    /** @return the TLS settings, or null for plaintext */
    public TlsConfig tls() {
        return tls;
    }

    /** @return the client-wide byte budget */
    public long maxInFlightBytes() {
        return maxInFlightBytes;
    }

    /** @return the cap on regular requests in flight (0: none) */
    public int maxInFlightRequests() {
        return maxInFlightRequests;
    }

    /** @return what happens at a limit */
    public WhenFull whenFull() {
        return whenFull;
    }

    /** @return the longest wait for room under {@link WhenFull#Block} */
    public Duration maxBlock() {
        return maxBlock;
    }

    /** @return where the client reports its metrics; {@link MetricsSink#NONE} unless set */
    public MetricsSink metrics() {
        return metrics;
    }

    /** @return the buffer cache sizes */
    public BufferCache bufferCache() {
        return bufferCache;
    }

    @Override
    public String toString() {
        return "GreptimeOptions{endpoints=" + endpoints + ", database=" + database + ", authInfo=" + authInfo
                + ", timezone=" + timezone + ", requestTimeout=" + requestTimeout + ", maxMessageSize=" + maxMessageSize
                + ", retryPolicy=" + retryPolicy + ", tls=" + tls + ", maxInFlightBytes=" + maxInFlightBytes
                + ", maxInFlightRequests=" + maxInFlightRequests + ", whenFull=" + whenFull + ", maxBlock=" + maxBlock + ", bufferCache=" + bufferCache
                + '}';
    }

    /** Builder for {@link GreptimeOptions}. */
    public static final class Builder {
        private final List<String> endpoints;
        private final String database;
        private AuthInfo authInfo;
        /** An offset from UTC: sign, hours, minutes. */
        private static final Pattern OFFSET = Pattern.compile("[+-]?(\\d{1,2}):([0-5]\\d)");
        private String timezone = "";
        private Duration requestTimeout = Duration.ofSeconds(60);
        private int maxMessageSize = 64 << 20;
        private int maxInboundMessageSize = 64 << 20;
        private Executor callbackExecutor;
        private RetryPolicy retryPolicy = RetryPolicy.newBuilder().build();
        private Duration healthCheckInterval = Duration.ofSeconds(5);
        private TlsConfig tls;
        private long maxInFlightBytes = 256L << 20;
        private int maxInFlightRequests = 1_024;
        private WhenFull whenFull = WhenFull.Block;
        private Duration maxBlock = Duration.ofSeconds(10);
        private MetricsSink metrics = MetricsSink.NONE;
        private BufferCache bufferCache = BufferCache.newBuilder().build();

        /**
         * The {@code host:port} to suggest for what follows a URL's scheme: the authority of a {@code dns:///} target
         * too, and GreptimeDB's gRPC port where the URL gave none or gave its HTTP port.
         */
        private static String suggestion(String afterScheme) {
            String authority = afterScheme.replaceAll("^/+", "").replaceAll("/.*$", "");
            int colon = authority.lastIndexOf(':');
            String host = colon > 0 ? authority.substring(0, colon) : authority;
            String port = colon > 0 ? authority.substring(colon + 1) : "";
            if (host.isEmpty()) {
                host = "localhost";
            }
            if (port.isEmpty() || port.equals("4000")) {
                port = "4001";
            }
            return host + ":" + port;
        }

        private Builder(List<String> endpoints, String database) {
            Objects.requireNonNull(endpoints, "endpoints");
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("at least one endpoint (host:port) is required");
            }
            for (String e : endpoints) {
                int scheme = e == null ? -1 : e.indexOf("://");
                if (scheme >= 0) {
                    throw new IllegalArgumentException("endpoint '" + e + "' is a URL; give host:port of GreptimeDB's"
                            + " gRPC port, without a scheme (e.g. '" + suggestion(e.substring(scheme + 3))
                            + "'; the gRPC port is 4001 by default, 4000 is the HTTP port), and for TLS set"
                            + " GreptimeOptions.Builder.tls(...)");
                }
                int colon = e == null ? -1 : e.lastIndexOf(':');
                if (colon <= 0 || colon == e.length() - 1) {
                    throw new IllegalArgumentException("endpoint '" + e + "' is not host:port");
                }
                try {
                    int port = Integer.parseInt(e.substring(colon + 1));
                    if (port <= 0 || port > 65_535) {
                        throw new IllegalArgumentException("endpoint '" + e + "' has an invalid port");
                    }
                } catch (NumberFormatException nfe) {
                    throw new IllegalArgumentException("endpoint '" + e + "' has a non-numeric port");
                }
            }
            if (database == null || database.isBlank()) {
                throw new IllegalArgumentException("database is required (GreptimeDB's default is 'public')");
            }
            this.endpoints = List.copyOf(endpoints);
            this.database = database;
        }

        /**
         * Sets basic-auth credentials.
         *
         * @param authInfo user and password
         * @return this
         */
        public Builder authInfo(AuthInfo authInfo) {
            this.authInfo = authInfo;
            return this;
        }

        /**
         * Sets the request timezone, as GreptimeDB reads it: an offset from UTC ({@code +08:00}, {@code -03:30}),
         * an IANA zone name ({@code Asia/Shanghai}, {@code UTC}), {@code SYSTEM} (the server's own), or empty for
         * UTC.
         *
         * @param timezone the timezone
         * @return this
         * @throws IllegalArgumentException when it is none of these (the server would read it as UTC or refuse every
         *     request)
         */
        public Builder timezone(String timezone) {
            Objects.requireNonNull(timezone, "timezone");
            if (!timezone.isEmpty() && !timezone.equalsIgnoreCase("SYSTEM") && !isOffset(timezone)
                    && !ZoneId.getAvailableZoneIds().contains(timezone)) {
                throw new IllegalArgumentException("timezone '" + timezone + "' is neither an offset from UTC under"
                        + " 24 hours (+08:00, -03:30) nor an IANA zone name (Asia/Shanghai, UTC)");
            }
            this.timezone = timezone;
            return this;
        }

        /**
         * Tells whether a timezone is an offset GreptimeDB takes: signed hours, a colon, minutes, under 24 hours
         * (GreptimeDB's {@code Timezone::from_tz_string} in src/common/time/src/timezone.rs).
         */
        private static boolean isOffset(String timezone) {
            Matcher m = OFFSET.matcher(timezone);
            return m.matches() && Integer.parseInt(m.group(1)) * 60 + Integer.parseInt(m.group(2)) < 24 * 60;
        }

        /**
         * Sets the deadline of each call (one attempt), from send to answer.
         *
         * @param timeout a positive duration (default 60 s)
         * @return this
         */
        public Builder requestTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive");
            }
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Sets the largest request the client sends (the server refuses more than 512 MiB).
         *
         * @param bytes a size in 1 KiB .. 512 MiB
         * @return this
         */
        public Builder maxMessageSize(int bytes) {
            if (bytes < 1024 || bytes > 512 << 20) {
                throw new IllegalArgumentException("maxMessageSize must be within 1 KiB .. 512 MiB");
            }
            this.maxMessageSize = bytes;
            return this;
        }

        /**
         * Sets the largest answer accepted.
         *
         * @param bytes a positive size
         * @return this
         */
        public Builder maxInboundMessageSize(int bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxInboundMessageSize must be positive");
            }
            this.maxInboundMessageSize = bytes;
            return this;
        }

        /**
         * Sets where write futures complete. It must not run tasks on a gRPC I/O thread. Keep it accepting tasks until
         * the client's shutdown has returned: a task it refuses (it was shut down first, or its queue is full) runs on the
         * thread handing it over, possibly a gRPC I/O thread, and the first refusal is logged at WARN.
         *
         * @param executor the executor; null for the client's own pool
         * @return this
         */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = executor;
            return this;
        }

        /**
         * Sets the default retry policy.
         *
         * @param policy the policy ({@link RetryPolicy#none()} to turn retries off)
         * @return this
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Sets how often endpoints are health-checked.
         *
         * @param interval the interval; zero turns checks off
         * @return this
         */
        public Builder healthCheckInterval(Duration interval) {
            if (interval == null || interval.isNegative()) {
                throw new IllegalArgumentException("healthCheckInterval must be zero or positive");
            }
            this.healthCheckInterval = interval;
            return this;
        }

        /**
         * Turns on TLS.
         *
         * @param tls trust, client certificate and server name settings
         * @return this
         */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** The retry policy set so far, for {@link ConnectionConfig} to change single values of. */
        RetryPolicy currentRetryPolicy() {
            return retryPolicy;
        }

        /** The credentials so far, or null, for {@link ConnectionConfig} to keep a password the string leaves out. */
        AuthInfo currentAuthInfo() {
            return authInfo;
        }

        /** The TLS settings so far, or null, for {@link ConnectionConfig} to change single values of. */
        TlsConfig currentTls() {
            return tls;
        }

        /**
         * Sets the client-wide byte budget for data waiting to be sent or in flight (every path together).
         *
         * @param bytes at least 1 MiB, at most 2 GiB - 1
         * @return this
         */
        public Builder maxInFlightBytes(long bytes) {
            if (bytes < (1 << 20) || bytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("maxInFlightBytes must be within 1 MiB .. 2 GiB - 1");
            }
            this.maxInFlightBytes = bytes;
            return this;
        }

        /**
         * Caps regular requests in flight.
         *
         * @param requests the cap, 0 for none
         * @return this
         */
        public Builder maxInFlightRequests(int requests) {
            if (requests < 0) {
                throw new IllegalArgumentException("maxInFlightRequests must be >= 0");
            }
            this.maxInFlightRequests = requests;
            return this;
        }

        /**
         * Sets what happens when a limit is reached.
         *
         * @param policy {@link WhenFull#Block} (default: wait up to {@code maxBlock}) or {@link WhenFull#FailFast}
         * @return this
         */
        public Builder whenFull(WhenFull policy) {
            this.whenFull = Objects.requireNonNull(policy, "whenFull");
            return this;
        }

        /**
         * Sets the longest wait for room under {@link WhenFull#Block}; then the write fails with a
         * {@link LimitExceededException}.
         *
         * @param wait zero or positive (default 10 s)
         * @return this
         */
        public Builder maxBlock(Duration wait) {
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException("maxBlock must be zero or positive");
            }
            this.maxBlock = wait;
            return this;
        }

        /**
         * Where the client reports what it does: rows, bytes, failures, retries, latencies and gauges (see
         * {@link MetricsSink}). To publish to Micrometer, pass {@code MicrometerMetricsSink.of(registry)}
         * ({@link MicrometerMetricsSink}); Micrometer is an optional dependency and only a program that names
         * that class needs it on its class path (or module path). Any other metrics library plugs in by
         * implementing {@link MetricsSink}.
         *
         * @param sink the sink; {@link MetricsSink#NONE} (the default) records nothing
         * @return this
         * @throws NullPointerException when sink is null
         */
        public Builder metrics(MetricsSink sink) {
            this.metrics = Objects.requireNonNull(sink, "sink");
            return this;
        }

        /**
         * Sets how much released memory the client keeps for its next large messages and bulk batches.
         *
         * @param cache the sizes, e.g. {@link BufferCache#none()} for a client that must give memory back at once
         * @return this
         */
        public Builder bufferCache(BufferCache cache) {
            if (cache == null) {
                throw new NullPointerException("bufferCache");
            }
            this.bufferCache = cache;
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the options
         */
        public GreptimeOptions build() {
            return new GreptimeOptions(this);
        }
    }
}
