package dev.sluice.sink;

import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The tests' rows: a host, a usage and a time in table {@code cpu}; a delete's key has no usage. */
public final class CpuRows implements RefusedRowIsolator.Rows<CpuRows.Row> {
    /** The table's schema. */
    public static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    /** A key of a row of {@link #CPU}: what a delete addresses. */
    public static final TableSchema CPU_KEY = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    /**
     * One row.
     *
     * @param schema its schema
     * @param values its values
     */
    public record Row(TableSchema schema, Object... values) {
    }

    /**
     * A row of {@link #CPU}.
     *
     * @param host the host
     * @param usage the usage (a value of another type makes the client refuse it)
     * @param ts the time in milliseconds
     * @return the row
     */
    public static Row cpu(String host, Object usage, long ts) {
        return new Row(CPU, host, usage, ts);
    }

    /**
     * A key of {@link #CPU}.
     *
     * @param host the host
     * @param ts the time in milliseconds
     * @return the key
     */
    public static Row key(String host, long ts) {
        return new Row(CPU_KEY, host, ts);
    }

    @Override
    public TableSchema schema(Row row) {
        return row.schema();
    }

    @Override
    public void append(Row row, Table table) {
        table.addRow(row.values());
    }

    /**
     * Empties the testkit (rows, request log, faults) and opens clients on it with a batching writer that sends
     * only when flushed and a client that does not retry.
     *
     * @param server the testkit
     * @return the clients
     */
    public static SinkClients openOnEmpty(GreptimeTestServer server) {
        server.clear();
        return SinkClients.open(GreptimeOptions.newBuilder(server.endpoint(), "public")
                        .requestTimeout(Duration.ofSeconds(10))
                        .retryPolicy(RetryPolicy.newBuilder().maxAttempts(1).build()).build(),
                Context.newBuilder().build(),
                BatchingWriter.Config.newBuilder().flushInterval(Duration.ofHours(1)).build());
    }

    /**
     * Writes one row to {@code cpu} through clients with the default request timeout, so that the classes of the
     * write path are loaded and compiled before a test's own clients run with a short one: on a busy machine a
     * JVM's first write can take a good part of a second.
     *
     * @param server the testkit
     */
    public static void warmUp(GreptimeTestServer server) {
        try (SinkClients clients = SinkClients.open(GreptimeOptions.newBuilder(server.endpoint(), "public").build(),
                Context.newBuilder().build(), BatchingWriter.Config.newBuilder().build())) {
            clients.writer().write(CPU, "warm-up", 0.0, 0L);
            clients.writer().flushOrThrow(Duration.ofMinutes(2));
        }
    }

    /**
     * Reads the hosts stored in {@code cpu}, sorted.
     *
     * @param server the testkit
     * @return the hosts
     */
    public static List<String> storedHosts(GreptimeTestServer server) {
        if (!server.tables().contains("cpu")) {
            return List.of();
        }
        List<String> hosts = new ArrayList<>();
        for (Map<String, Object> r : server.rows("cpu")) {
            hosts.add(String.valueOf(r.get("host")));
        }
        hosts.sort(null);
        return hosts;
    }

    /**
     * Counts the insert and delete requests the testkit received.
     *
     * @param server the testkit
     * @return the count
     */
    public static long writeRequests(GreptimeTestServer server) {
        return server.requests().stream().filter(r -> r.kind().equals("insert") || r.kind().equals("delete")).count();
    }

    /**
     * Counts the delete requests the testkit received.
     *
     * @param server the testkit
     * @return the count
     */
    public static long deleteRequests(GreptimeTestServer server) {
        return server.requests().stream().filter(r -> r.kind().equals("delete")).count();
    }
}
