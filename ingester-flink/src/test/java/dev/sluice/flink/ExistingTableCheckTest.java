package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When the GreptimeDB table exists, each writer reads its columns over the HTTP API when the job starts: a column
 * the table disagrees with fails the job before any row is sent, naming table, column and both types.
 */
class ExistingTableCheckTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    private static void existing(GreptimeTestServer s, TableSchema schema, Object... row) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public").build());
        try {
            assertTrue(db.write(Table.from(schema).addRow(row)).join().isOk());
        } finally {
            db.shutdownGracefully();
        }
    }

    private static long writesTo(GreptimeTestServer s, String table) {
        return s.requests().stream().filter(r -> (r.kind().equals("insert") || r.kind().equals("bulk"))
                && r.tables().contains(table)).count();
    }

    private static String sqlFailure(GreptimeTestServer s, String ddl, String insert, String... options) {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql(ddl + " WITH (" + SqlConnectorTest.with(s, options) + ")");
        return SqlConnectorTest.fullMessage(org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> t.executeSql(insert).await()));
    }

    @Test
    void aFlinkColumnTypeTheTableDisagreesWithFailsTheJobAtStartNamingBothTypes(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("typed_sql").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", 1.0, 1_704_067_200_000L);
        long before = writesTo(s, "typed_sql");
        String msg = sqlFailure(s, "CREATE TABLE typed_sql (host STRING, v BIGINT, ts TIMESTAMP(3),"
                        + " PRIMARY KEY (host, ts) NOT ENFORCED)",
                "INSERT INTO typed_sql VALUES ('b', CAST(7 AS BIGINT), TIMESTAMP '2024-01-01 00:00:01')",
                "http-endpoint", s.httpEndpoint());
        assertTrue(msg.contains("table typed_sql in database public exists and disagrees"), msg);
        assertTrue(msg.contains("column v is BIGINT in the Flink table, written as Int64, but Float64 in"
                + " GreptimeDB's table"), msg);
        assertTrue(msg.contains("cast it"), msg);
        assertEquals(before, writesTo(s, "typed_sql"), "no row was sent");
        assertEquals(1, s.rowCount("typed_sql"));
    }

    @Test
    void aMapperSchemaTypeTheTableDisagreesWithFailsTheJobAtStart(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("typed_ds").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", 1.0, 1_704_067_200_000L);
        long before = writesTo(s, "typed_ds");
        TableSchema mine = TableSchema.newBuilder("typed_ds").addTag("host", DataType.String)
                .addField("v", DataType.Int64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
        env.fromSequence(0, 9).returns(Types.LONG).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                .httpEndpoint(s.httpEndpoint())
                .table(mine, (i, row) -> row.setString(0, "h").setLong(1, i).setLong(2, 1_704_067_200_000L + i))
                .build());
        String msg = SqlConnectorTest.fullMessage(org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> env.execute("typed_ds")));
        assertTrue(msg.contains("column v is Int64 in the sink's TableSchema, written as Int64, but Float64 in"
                + " GreptimeDB's table"), msg);
        assertEquals(before, writesTo(s, "typed_ds"), "no row was sent");
    }

    @Test
    void aColumnTheTableLacksFailsABulkJobAtStart(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("narrow").addTag("host", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", 1_704_067_200_000L);
        long before = writesTo(s, "narrow");
        String msg = sqlFailure(s, "CREATE TABLE narrow (host STRING, extra DOUBLE, ts TIMESTAMP(3),"
                        + " PRIMARY KEY (host, ts) NOT ENFORCED)",
                "INSERT INTO narrow VALUES ('b', 2.0, TIMESTAMP '2024-01-01 00:00:01')",
                "http-endpoint", s.httpEndpoint(), "write.path", "bulk");
        assertTrue(msg.contains("column extra (DOUBLE in the Flink table, written as Float64) is missing from"
                + " GreptimeDB's table, and the bulk path does not add columns"), msg);
        assertEquals(before, writesTo(s, "narrow"), "no row was sent");
    }

    @Test
    void aTagTheTableHoldsAsAFieldFailsTheJobAtStart(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("roles").addTag("host", DataType.String).addField("region", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", "eu", 1_704_067_200_000L);
        String msg = sqlFailure(s, "CREATE TABLE roles (host STRING, region STRING, ts TIMESTAMP(3),"
                        + " PRIMARY KEY (host, region, ts) NOT ENFORCED)",
                "INSERT INTO roles VALUES ('b', 'us', TIMESTAMP '2024-01-01 00:00:01')",
                "http-endpoint", s.httpEndpoint());
        assertTrue(msg.contains("column region is a tag in the sink but a field in GreptimeDB's table"), msg);
    }

    @Test
    void aTableThatAgreesIsWrittenAndANewColumnIsAddedOnTheRegularPath(GreptimeTestServer s) throws Exception {
        existing(s, TableSchema.newBuilder("agrees").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addColumn("d", dev.sluice.data.SemanticType.Field, DataType.Decimal128, new dev.sluice.data.DecimalType(10, 2))
                .addTimestamp("ts", DataType.TimestampMillisecond).build(),
                "a", 1.0, new java.math.BigDecimal("1.50"), 1_704_067_200_000L);
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE agrees (host STRING, v DOUBLE, d DECIMAL(10, 2), extra BIGINT, ts TIMESTAMP(3),"
                + " PRIMARY KEY (host, ts) NOT ENFORCED) WITH (" + SqlConnectorTest.with(s, "http-endpoint",
                s.httpEndpoint()) + ")");
        t.executeSql("INSERT INTO agrees VALUES ('b', 2.0, CAST(2.25 AS DECIMAL(10, 2)), CAST(5 AS BIGINT),"
                + " TIMESTAMP '2024-01-01 00:00:01')").await();
        assertEquals(2, s.rowCount("agrees"));
        assertEquals(List.of("host", "v", "d", "ts", "extra"),
                s.schema("agrees").columns().stream().map(TableSchema.Column::name).toList());
    }

    @Test
    void anHttpEndpointSetButUnreachableFailsTheJobAtStart(GreptimeTestServer s) {
        String msg = sqlFailure(s, "CREATE TABLE unreachable (host STRING, ts TIMESTAMP(3))",
                "INSERT INTO unreachable VALUES ('b', TIMESTAMP '2024-01-01 00:00:01')",
                "http-endpoint", "127.0.0.1:1");
        assertTrue(msg.contains("cannot read the columns of table unreachable in database public from GreptimeDB's"
                + " HTTP API at http://127.0.0.1:1"), msg);
        assertTrue(msg.contains("Set http-endpoint"), msg);
        assertEquals(0, s.rowCount("unreachable"));
    }

    @Test
    void httpEndpointNoneSkipsTheCheckAndTheServerRefusesAtTheFirstBatch(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("unchecked").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", 1.0, 1_704_067_200_000L);
        String msg = sqlFailure(s, "CREATE TABLE unchecked (host STRING, v BIGINT, ts TIMESTAMP(3),"
                        + " PRIMARY KEY (host, ts) NOT ENFORCED)",
                "INSERT INTO unchecked VALUES ('b', CAST(7 AS BIGINT), TIMESTAMP '2024-01-01 00:00:01')",
                "http-endpoint", "none");
        assertTrue(msg.contains("column v expect type Float64") && msg.contains("INT64"), msg);
        assertTrue(!msg.contains("exists and disagrees"), msg);
    }
}
