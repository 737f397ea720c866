package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The WARN a bulk writer's first transport failure logs says, in plain English, what happens to the unanswered
 * batches next (an operator reads it in the middle of an incident).
 */
class TransportFailureWarningWordingTest {
    @Test
    void theBulkWarningSaysBatches() throws Exception {
        String dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = "127.0.0.1:" + s.getLocalPort();
        }
        TableSchema schema = TableSchema.newBuilder("warning_wording").addTag("host", DataType.String)
                .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            try (GreptimeDB setup = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build())) {
                assertTrue(setup.write(Table.from(schema).addRow("setup", 0.0, 1L)).join().isOk());
            }
            try (StandardErrorCapture log = new StandardErrorCapture();
                 GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(dead, server.endpoint()), "public")
                         .healthCheckInterval(Duration.ZERO).build())) {
                String failed = "endpoint " + dead + " failed";
                for (int i = 0; i < 10 && log.linesContaining(failed) == 0; i++) {
                    try (BulkStreamWriter bulk = db.bulkStreamWriter(schema,
                            BulkWrite.Config.newBuilder().createTable(false).build(), Context.newBuilder().build())) {
                        TableBufferRoot batch = bulk.tableBufferRoot(4);
                        batch.addRow("h", 0.5, 2L + i);
                        bulk.writeNext();
                        bulk.completed();
                    }
                }
                String line = log.text().lines().filter(l -> l.contains(failed)).findFirst().orElseThrow(
                        () -> new AssertionError("no warning about " + dead + ":\n" + log.text()));
                assertFalse(line.contains("batchs"), line);
                assertTrue(line.contains("batches"), line);
            }
        }
    }
}
