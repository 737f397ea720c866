package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.math.BigDecimal;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** README: the start-up check compares "another type (timestamp unit, decimal precision and scale included)". */
class ExistingTableUnitAndScaleCheckTest {
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

    private static String failure(GreptimeTestServer s, String ddl, String insert) {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql(ddl + " WITH (" + SqlConnectorTest.with(s, "http-endpoint", s.httpEndpoint()) + ")");
        return SqlConnectorTest.fullMessage(org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> t.executeSql(insert).await()));
    }

    @Test
    void aTimeIndexOfAnotherUnitFailsTheJobAtStartNamingBothTypes(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("unit_ms").addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", 1.0, 1_704_067_200_000L);
        String msg = failure(s, "CREATE TABLE unit_ms (host STRING, v DOUBLE, ts TIMESTAMP(6), PRIMARY KEY (host,"
                + " ts) NOT ENFORCED)", "INSERT INTO unit_ms VALUES ('b', 2.0, TIMESTAMP '2024-01-01 00:00:01.000001')");
        assertTrue(msg.contains("table unit_ms") && msg.contains("column ts"), msg);
        assertTrue(msg.contains("TimestampMicrosecond") && msg.contains("TimestampMillisecond"), msg);
        assertEquals(1, s.rowCount("unit_ms"));
    }

    @Test
    void aDecimalOfAnotherScaleFailsTheJobAtStartNamingBothTypes(GreptimeTestServer s) {
        existing(s, TableSchema.newBuilder("scaled").addTag("host", DataType.String)
                .addColumn("price", SemanticType.Field, DataType.Decimal128, new DecimalType(10, 2))
                .addTimestamp("ts", DataType.TimestampMillisecond).build(), "a", new BigDecimal("1.25"),
                1_704_067_200_000L);
        String msg = failure(s, "CREATE TABLE scaled (host STRING, price DECIMAL(10, 4), ts TIMESTAMP(3),"
                + " PRIMARY KEY (host, ts) NOT ENFORCED)",
                "INSERT INTO scaled VALUES ('b', CAST(1.2345 AS DECIMAL(10, 4)), TIMESTAMP '2024-01-01 00:00:01')");
        assertTrue(msg.contains("table scaled") && msg.contains("column price"), msg);
        assertTrue(msg.contains("DECIMAL(10, 4)") && (msg.contains("10, 2") || msg.contains("(10,2)")), msg);
        assertEquals(1, s.rowCount("scaled"));
    }
}
