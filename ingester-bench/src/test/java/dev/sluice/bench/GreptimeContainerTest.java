package dev.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.write.Context;
import dev.sluice.data.DataType;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.bench.target.ContainerTarget;
import dev.sluice.bench.target.GreptimeTarget;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * Writes through all three paths into a real GreptimeDB in Docker and reads the rows back over HTTP SQL.
 * Skipped (reported as skipped, never as passed) where no Docker engine is reachable. Run on a machine with
 * Docker: {@code ./mvnw -B -pl ingester-bench -am verify -Dtest=GreptimeContainerTest -Dsurefire.failIfNoSpecifiedTests=false};
 * choose the image with {@code -Dgreptime.image=greptime/greptimedb:<tag>}.
 */
@Testcontainers(disabledWithoutDocker = true)
class GreptimeContainerTest {
    @Container
    static final GenericContainer<?> GREPTIME = ContainerTarget.greptime(
            System.getProperty("greptime.image", "greptime/greptimedb:latest"));

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Table rows(TableSchema s, int n) {
        Table t = Table.from(s);
        for (int i = 0; i < n; i++) {
            t.addRow("h" + (i % 3), i * 0.5, 1_700_000_000_000L + i);
        }
        return t;
    }

    @Test
    void allThreePathsStoreTheirRowsInARealGreptimeDb() throws Exception {
        String grpc = GREPTIME.getHost() + ":" + GREPTIME.getMappedPort(4001);
        GreptimeTarget sql = new GreptimeTarget(grpc, GREPTIME.getHost() + ":" + GREPTIME.getMappedPort(4000),
                "public", null, null);
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(grpc, "public").build());
        try {
            Result<WriteOk, Err> r = db.write(rows(schema("it_regular"), 100)).join();
            assertTrue(r.isOk(), r::toString);
            assertEquals(100, sql.count("it_regular"));

            StreamWriter<Table, WriteOk> stream = db.streamWriter();
            stream.write(rows(schema("it_stream"), 60)).write(rows(schema("it_stream"), 60));
            assertEquals(120, stream.completed().join().affectedRows());
            assertEquals(60, sql.count("it_stream"), "the second table repeats the keys of the first: last write wins");

            try (BulkStreamWriter bulk = db.bulkStreamWriter(schema("it_bulk"), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().build())) {
                TableBufferRoot batch = bulk.tableBufferRoot(100);
                for (int i = 0; i < 100; i++) {
                    batch.addRow("h" + (i % 3), i * 0.5, 1_700_000_000_000L + i);
                }
                assertEquals(100, bulk.writeNext().join());
                bulk.completed();
            }
            assertEquals(100, sql.count("it_bulk"));
        } finally {
            db.shutdownGracefully();
        }
    }
}
