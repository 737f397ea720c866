package dev.sluice.testkit;

import dev.sluice.data.TableSchema;
import dev.sluice.testkit.internal.Storage;
import dev.sluice.testkit.internal.ZstdCodec;
import io.grpc.DecompressorRegistry;
import io.grpc.CompressorRegistry;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;

/**
 * An in-process server that answers GreptimeDB's gRPC protocol on one port, stores what it is sent with
 * GreptimeDB's semantics, lets a test read it back, and injects faults.
 *
 * <pre>{@code
 * try (GreptimeTestServer server = GreptimeTestServer.builder().start()) {
 *     // point a client at server.endpoint(), write, then:
 *     assertEquals(3, server.rowCount("metrics"));
 *     server.faults().failNext(1, StatusCode.RateLimited, "slow down");
 * }
 * }</pre>
 *
 * <p>The server's threads are named {@code testkit-*}, so a benchmark in the same process can tell its CPU
 * time from the client's. Storage survives {@link #restart()}, so a test can drop every connection and come back on the same port.
 * Read-back methods without a database argument look in {@code public}.
 */
public final class GreptimeTestServer implements AutoCloseable {
    private final String host;
    private final Map<String, String> users;
    private final Storage storage;
    private final Faults faults = new Faults();
    private final RequestLog log;
    private final boolean allowBulkAutoCreate;
    private final int maxMessageBytes;
    private final Path tlsCertChain;
    private final Path tlsKey;
    private final Path tlsClientCa;
    private volatile BulkService bulk;
    private final SqlHttpEndpoint http;
    private final EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("testkit-boss", true));
    private final EventLoopGroup workers = new NioEventLoopGroup(0, new DefaultThreadFactory("testkit-io", true));
    private final ExecutorService executor = Executors.newCachedThreadPool(new ThreadFactory() {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "testkit-exec-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    });
    private volatile Server server;
    private volatile int port;

    private GreptimeTestServer(Builder b) {
        this.host = b.host;
        this.users = Map.copyOf(b.users);
        this.storage = new Storage(b.retainRows);
        this.log = new RequestLog(b.requestLogCapacity);
        this.port = b.port;
        this.allowBulkAutoCreate = b.allowBulkAutoCreate;
        this.maxMessageBytes = b.maxMessageBytes;
        this.tlsCertChain = b.tlsCertChain;
        this.tlsKey = b.tlsKey;
        this.tlsClientCa = b.tlsClientCa;
        try {
            this.http = b.httpPort < 0 ? null : new SqlHttpEndpoint(host, b.httpPort, storage,
                    new RequestProcessor(storage, users, faults, log));
        } catch (IOException e) {
            throw new UncheckedIOException("testkit could not serve HTTP on " + host + ":" + b.httpPort, e);
        }
    }

    /**
     * Starts configuring a server.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a server on a free loopback port with default settings.
     *
     * @return the running server
     */
    public static GreptimeTestServer start() {
        return builder().start();
    }

    /** Listens; {@code retryNanos} is how long a port still held by the listener just stopped is waited for. */
    private synchronized void bind(long retryNanos) {
        RequestProcessor processor = new RequestProcessor(storage, users, faults, log);
        NettyServerBuilder nb = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .channelType(NioServerSocketChannel.class)
                .executor(executor)
                // The transport lets every message through; the services answer one over the limit as the server does.
                .maxInboundMessageSize(Integer.MAX_VALUE)
                .compressorRegistry(registryWithZstd())
                .decompressorRegistry(DecompressorRegistry.getDefaultInstance().with(ZstdCodec.INSTANCE, true))
                .addService(ServerInterceptors.intercept(new DatabaseService(processor, faults, log, maxMessageBytes),
                        new DatabaseService.MetadataInterceptor()))
                .addService(new DatabaseService.Health(log));
        if (bulk == null) {
            bulk = new BulkService(storage, processor, faults, log, allowBulkAutoCreate, maxMessageBytes);
        }
        nb.addService(ServerInterceptors.intercept(bulk.definition(), new DatabaseService.MetadataInterceptor()));
        if (tlsCertChain != null) {
            try {
                SslContextBuilder ssl = GrpcSslContexts.forServer(tlsCertChain.toFile(), tlsKey.toFile());
                if (tlsClientCa != null) {
                    ssl.trustManager(tlsClientCa.toFile()).clientAuth(ClientAuth.REQUIRE);
                }
                nb.sslContext(ssl.build());
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalArgumentException("testkit TLS setup failed: " + e.getMessage(), e);
            }
        }
        // After stop(), the old listener can hold the port a little longer than its termination wait (a
        // server still draining large messages): listening again on that port is retried for up to 10 s.
        long deadline = System.nanoTime() + retryNanos;
        while (true) {
            Server candidate = nb.build();
            try {
                server = candidate.start();
                break;
            } catch (IOException e) {
                candidate.shutdownNow();
                if (!(rootCause(e) instanceof java.net.BindException) || System.nanoTime() > deadline) {
                    throw new UncheckedIOException("testkit could not listen on " + host + ":" + port, e);
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new UncheckedIOException("testkit could not listen on " + host + ":" + port
                            + " (interrupted while the port was still in use)", e);
                }
            }
        }
        port = server.getPort();
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        for (int depth = 0; c.getCause() != null && depth < 10; depth++) {
            c = c.getCause();
        }
        return c;
    }

    private static CompressorRegistry registryWithZstd() {
        CompressorRegistry r = CompressorRegistry.newEmptyInstance();
        r.register(io.grpc.Codec.Identity.NONE);
        r.register(new io.grpc.Codec.Gzip());
        r.register(ZstdCodec.INSTANCE);
        return r;
    }

    /**
     * Returns the port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * Returns {@code host:port} for a client's endpoint list.
     *
     * @return the endpoint
     */
    public String endpoint() {
        return host + ":" + port;
    }

    /**
     * Returns the HTTP endpoint ({@code /health} and {@code /v1/sql}), when one was asked for.
     *
     * @return {@code host:port}, or null
     */
    public String httpEndpoint() {
        return http == null ? null : host + ":" + http.port();
    }

    /**
     * Returns the fault knobs.
     *
     * @return the faults of this server
     */
    public Faults faults() {
        return faults;
    }

    /**
     * Creates a database (as {@code CREATE DATABASE IF NOT EXISTS}).
     *
     * @param name database name
     * @return this
     */
    public GreptimeTestServer createDatabase(String name) {
        storage.createDatabase(name);
        return this;
    }

    /**
     * Lists the tables of {@code public}.
     *
     * @return table names
     */
    public List<String> tables() {
        return storage.tables("public");
    }

    /**
     * Lists the tables of a database.
     *
     * @param database database name
     * @return table names, empty when the database does not exist
     */
    public List<String> tables(String database) {
        return storage.tables(database);
    }

    /**
     * Returns a table's schema in {@code public}.
     *
     * @param table table name
     * @return the schema (columns in table order: creation order, added columns last)
     */
    public TableSchema schema(String table) {
        return schema("public", table);
    }

    /**
     * Returns a table's schema.
     *
     * @param database database name
     * @param table table name
     * @return the schema
     * @throws IllegalArgumentException when the table does not exist
     */
    public TableSchema schema(String database, String table) {
        TableSchema.Builder b = TableSchema.newBuilder(table);
        for (TableSchema.Column c : storage.columns(database, table)) {
            if (c.vectorType() != null) {
                b.addColumn(c.name(), c.semanticType(), c.dataType(), c.vectorType());
            } else {
                b.addColumn(c.name(), c.semanticType(), c.dataType(), c.decimalType());
            }
        }
        return b.build();
    }

    /**
     * Returns the options a table was created with (hints of the creating write, or DDL table options).
     *
     * @param database database name
     * @param table table name
     * @return options
     */
    public Map<String, String> tableOptions(String database, String table) {
        return storage.options(database, table);
    }

    /**
     * Returns the rows of a table in {@code public}.
     *
     * @param table table name
     * @return rows, see {@link #rows(String, String)}
     */
    public List<Map<String, Object>> rows(String table) {
        return rows("public", table);
    }

    /**
     * Returns the rows of a table, one map per row from column name to value, in insertion order (a row
     * overwritten by a later write with the same tags and time index takes the later position).
     * Values: {@code Long} for Int8..Int64, UInt8..UInt32, timestamps and times (in the column's unit);
     * {@code BigInteger} for UInt64; {@code Float}, {@code Double}, {@code Boolean}, {@code String} (also JSON
     * text), {@code byte[]} (a copy; also a JSON value written by DoPut, which the open-source server stores
     * unconverted), {@code LocalDate} for dates, {@code BigDecimal} at the column's scale, {@code float[]} (a copy)
     * for a vector (or its raw {@code byte[]} when a write sent a byte count other than 4 * dim, which the server
     * stores without checking); null for NULL.
     * Small integers are stored as the server narrows them (an {@code i8_value} of 1002 reads back -22).
     *
     * @param database database name
     * @param table table name
     * @return rows
     * @throws IllegalArgumentException when the table does not exist
     */
    public List<Map<String, Object>> rows(String database, String table) {
        return storage.rows(database, table);
    }

    /**
     * Returns some columns of a table in {@code public}: one list per named column, each holding the stored rows'
     * values in the order of {@link #rows(String)} (read in one step, so the lists line up), with the same values.
     * Cheaper than {@link #rows(String)} for large tables.
     *
     * @param table table name
     * @param columns the columns' names
     * @return one list per column, in the order named
     * @throws IllegalArgumentException when the table or a column does not exist
     */
    public List<List<Object>> columns(String table, String... columns) {
        return storage.columns("public", table, List.of(columns));
    }

    /**
     * Counts the rows of a table in {@code public}.
     *
     * @param table table name
     * @return rows stored, 0 when the table does not exist
     */
    public long rowCount(String table) {
        return storage.rowCount("public", table);
    }

    /**
     * Counts the rows of a table.
     *
     * @param database database name
     * @param table table name
     * @return rows stored, 0 when the table does not exist
     */
    public long rowCount(String database, String table) {
        return storage.rowCount(database, table);
    }

    /**
     * Returns the most recent requests (up to the builder's log capacity), oldest first.
     *
     * @return recorded requests
     */
    public List<RecordedRequest> requests() {
        return log.snapshot();
    }

    /**
     * Counts every request received since start or {@link #clear()}.
     *
     * @return the number of requests
     */
    public long requestCount() {
        return log.total();
    }

    /**
     * Waits for the next request not yet taken, in arrival order.
     *
     * @param timeout how long to wait
     * @return the request, or null when none arrived in time
     * @throws InterruptedException when interrupted
     */
    public RecordedRequest takeRequest(Duration timeout) throws InterruptedException {
        return log.take(timeout);
    }

    /**
     * Returns the most bulk batches that were stored but not yet answered at one time, across streams, since
     * start or {@link #clear()}: with answers delayed, this is how many the client kept in flight.
     *
     * @return the high-water mark
     */
    public int bulkMaxUnanswered() {
        BulkService b = bulk;
        return b == null ? 0 : b.maxUnanswered();
    }

    /** Forgets every table, row and recorded request, and removes every fault. */
    public void clear() {
        storage.clear();
        log.clear();
        faults.reset();
        BulkService b = bulk;
        if (b != null) {
            b.resetStats();
        }
    }

    /**
     * Stops listening and drops every connection; stored data is kept. Requests held by {@link Faults#hold} are
     * released first (stored and answered as {@link Faults#release()} does), so nothing waits on the hold.
     *
     * @return this
     */
    public synchronized GreptimeTestServer stop() {
        faults.release();
        Server s = server;
        if (s != null) {
            s.shutdownNow();
            try {
                s.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server = null;
        }
        return this;
    }

    /**
     * Listens again on the same port after {@link #stop()}. While the port is still held (the stopped listener
     * can take a moment longer to let go of it), listening is retried for up to 10 s.
     *
     * @return this
     * @throws java.io.UncheckedIOException when the port is still in use after that
     */
    public synchronized GreptimeTestServer resume() {
        if (server == null) {
            bind(TimeUnit.SECONDS.toNanos(10));
        }
        return this;
    }

    /**
     * Drops every connection and listens again on the same port, keeping stored data.
     *
     * @return this
     */
    public GreptimeTestServer restart() {
        stop();
        return resume();
    }

    /**
     * Tells whether the server is listening.
     *
     * @return true while running
     */
    public boolean isRunning() {
        return server != null;
    }

    /** Stops the server, releasing held requests first (see {@link #stop()}). */
    @Override
    public void close() {
        stop();
        if (http != null) {
            http.close();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        executor.shutdownNow();
        BulkService b = bulk;
        if (b != null) {
            b.close();
        }
    }

    @Override
    public String toString() {
        return "GreptimeTestServer{" + endpoint() + (users.isEmpty() ? "" : ", users=" + users.keySet()) + '}';
    }

    /** Settings for a {@link GreptimeTestServer}. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private final Map<String, String> users = new LinkedHashMap<>();
        private boolean retainRows = true;
        private int requestLogCapacity = 10_000;
        private boolean allowBulkAutoCreate;
        private Path tlsCertChain;
        private Path tlsKey;
        private Path tlsClientCa;
        private int httpPort = -1;
        private int maxMessageBytes = 512 * 1024 * 1024;

        private Builder() {
        }

        /**
         * Sets the largest message the server accepts, as GreptimeDB's {@code grpc.max_recv_message_size}
         * (default 512 MiB). A larger one is answered OUT_OF_RANGE without GreptimeDB trailers, as the server's
         * transport does.
         *
         * @param bytes the limit in bytes, at least 1
         * @return this
         */
        public Builder maxMessageBytes(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxMessageBytes must be at least 1, got " + bytes);
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /**
         * Also serves GreptimeDB's HTTP API slice: {@code GET /health}, and {@code POST /v1/sql} with GreptimeDB's DDL
         * ({@code CREATE TABLE ... TIME INDEX ... PRIMARY KEY ... WITH(...)}, {@code CREATE DATABASE}, {@code DROP
         * TABLE}, {@code TRUNCATE}, {@code SHOW TABLES|DATABASES}, {@code DESC TABLE}) and {@code SELECT} queries
         * (run by an embedded SQL engine); basic auth when users are configured.
         *
         * @param port the port, 0 for a free one
         * @return this
         */
        public Builder httpPort(int port) {
            this.httpPort = port;
            return this;
        }

        /**
         * Serves TLS only.
         *
         * @param certChainPem the server's certificate chain (PEM)
         * @param privateKeyPem its PKCS#8 private key (PEM)
         * @param clientCaPem CA certificates a client's certificate must chain to (mutual TLS), or null to not ask
         *     clients for one
         * @return this
         */
        public Builder tls(Path certChainPem, Path privateKeyPem, Path clientCaPem) {
            this.tlsCertChain = certChainPem;
            this.tlsKey = privateKeyPem;
            this.tlsClientCa = clientCaPem;
            return this;
        }

        /**
         * Lets a bulk (DoPut) stream create a missing table from its Arrow field metadata, as newer enterprise
         * servers do. Off by default, as on the open-source server, which answers TableNotFound.
         *
         * @param allow true to allow it
         * @return this
         */
        public Builder allowBulkAutoCreate(boolean allow) {
            this.allowBulkAutoCreate = allow;
            return this;
        }

        /**
         * Sets the address to bind.
         *
         * @param host an interface address; default {@code 127.0.0.1}
         * @return this
         */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /**
         * Sets the port.
         *
         * @param port the port; 0 (default) picks a free one
         * @return this
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Adds a user; with at least one user, every write must carry valid basic credentials.
         *
         * @param username user name
         * @param password password
         * @return this
         */
        public Builder user(String username, String password) {
            users.put(username, password);
            return this;
        }

        /**
         * Chooses whether rows are kept. Without them the server still checks and counts every row, so
         * long benchmarks run in bounded memory; {@code rows()} is then empty and deletes remove nothing.
         *
         * @param retain true (default) to keep rows
         * @return this
         */
        public Builder retainRows(boolean retain) {
            this.retainRows = retain;
            return this;
        }

        /**
         * Sets how many recent requests {@link #requests()} keeps.
         *
         * @param capacity the number, default 10,000
         * @return this
         */
        public Builder requestLogCapacity(int capacity) {
            this.requestLogCapacity = capacity;
            return this;
        }


        /**
         * Builds and starts the server.
         *
         * @return the running server
         */
        public GreptimeTestServer start() {
            GreptimeTestServer s = new GreptimeTestServer(this);
            try {
                s.bind(0);
            } catch (RuntimeException e) {
                s.close(); // the HTTP endpoint and thread pools must not outlive a failed start
                throw e;
            }
            return s;
        }
    }
}
