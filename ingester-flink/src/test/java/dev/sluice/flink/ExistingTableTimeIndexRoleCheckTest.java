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
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** README: the start-up check fails on "another role (tag, field, time index)": here the time index moves. */
class ExistingTableTimeIndexRoleCheckTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @Test
    void aSinkWhoseTimeIndexIsAnotherColumnFailsAtStartNamingTheColumn(GreptimeTestServer s) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public").build());
        try {
            assertTrue(db.write(Table.from(TableSchema.newBuilder("moved_index").addTag("host", DataType.String)
                    .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build())
                    .addRow("a", 1.0, 1_704_067_200_000L)).join().isOk());
        } finally {
            db.shutdownGracefully();
        }
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE moved_index (host STRING, v DOUBLE, ts TIMESTAMP(3), event_time TIMESTAMP(3),"
                + " PRIMARY KEY (host, event_time) NOT ENFORCED) WITH (" + SqlConnectorTest.with(s, "http-endpoint",
                s.httpEndpoint(), "time-index", "event_time") + ")");
        String msg = SqlConnectorTest.fullMessage(org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> t.executeSql("INSERT INTO moved_index VALUES ('b', 2.0, TIMESTAMP '2024-01-01 00:00:01',"
                        + " TIMESTAMP '2024-01-01 00:00:02')").await()));
        assertTrue(msg.contains("table moved_index") && msg.contains("exists and disagrees"), msg);
        assertTrue(msg.contains("column ts") || msg.contains("column event_time"), msg);
        assertEquals(1, s.rowCount("moved_index"));
    }
}
