package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.StatusCode;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad rows, refused batches and bad credentials fail the job with a message that says what and where. */
class FailureReportingTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    /** The server the mapper of {@link #aBatchRefusedBeyondTheRetriesFailsTheJobWithTheServersAnswer} reaches. */
    static volatile GreptimeTestServer server;

    private static String failureOf(ThrowingRunnable r) {
        Throwable t = assertThrows(Throwable.class, r::run);
        return SqlConnectorTest.fullMessage(t);
    }

    /**
     * What Flink reports instead of a task's own failure when the task fails just as its bounded source runs out:
     * the source's coordinator finds its "no more splits" event undeliverable and fails the job with that.
     */
    private static final String LOST_SOURCE_EVENT = "An OperatorEvent from an OperatorCoordinator to a task was lost";

    /**
     * Builds and runs a job, expecting it to fail, and returns the failure's messages. A run whose failure Flink
     * reported as {@link #LOST_SOURCE_EVENT} says nothing of the sink, so the job is built and run again (at most
     * four runs in all).
     */
    private static String jobFailure(String name, java.util.function.Supplier<StreamExecutionEnvironment> job) {
        String msg = "";
        for (int run = 0; run < RUNS_PER_JOB && (run == 0 || msg.contains(LOST_SOURCE_EVENT)); run++) {
            StreamExecutionEnvironment env = job.get();
            msg = failureOf(() -> env.execute(name));
        }
        return msg;
    }

    private static final int RUNS_PER_JOB = 4;

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aRowTheClientRefusesFailsTheJobNamingRowAndColumn(GreptimeTestServer s) {
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE null_ts (host STRING, v DOUBLE, ts TIMESTAMP(3)) WITH ("
                + SqlConnectorTest.with(s, "sink.retry.timeout", "5s") + ")");
        String msg = failureOf(() -> t.executeSql("INSERT INTO null_ts VALUES ('good', 1.0, TIMESTAMP '2024-01-01"
                + " 00:00:00'), ('bad', 2.0, CAST(NULL AS TIMESTAMP(3)))").await());
        assertTrue(msg.contains("in column ts"), msg);
        assertTrue(msg.contains("+I(host=bad, v=2.0, ts=null)"), msg);
        assertTrue(msg.contains("null_ts"), msg);
    }

    @Test
    void withoutTheHttpApiAColumnTypeTheTableDisagreesWithFailsTheFirstBatchNamingBothTypes(GreptimeTestServer s) throws Exception {
        TableSchema existing = TableSchema.newBuilder("typed").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(s.endpoint(), "public").build());
        try {
            assertTrue(db.write(Table.from(existing).addRow("a", 1.0, 1_704_067_200_000L)).join().isOk());
        } finally {
            db.shutdownGracefully();
        }
        TableEnvironment t = SqlConnectorTest.streaming();
        t.executeSql("CREATE TABLE typed (host STRING, v BIGINT, ts TIMESTAMP(3), PRIMARY KEY (host, ts) NOT ENFORCED)"
                + " WITH (" + SqlConnectorTest.with(s) + ")");
        String msg = failureOf(() -> t.executeSql("INSERT INTO typed VALUES ('b', CAST(7 AS BIGINT),"
                + " TIMESTAMP '2024-01-01 00:00:01')").await());
        assertTrue(msg.contains("table typed"), msg);
        assertTrue(msg.contains("code 1004"), msg);
        assertTrue(msg.contains("column v expect type Float64") && msg.contains("INT64"), msg);
        assertEquals(1, s.rowCount("typed"), "the refused row was not stored, the earlier one kept");
    }

    @Test
    void aValueTheServerRefusesFailsTheJobNamingRowAndColumn(GreptimeTestServer s) {
        s.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "Invalid value for column host: 'bad'");
        try {
            TableEnvironment t = SqlConnectorTest.streaming();
            t.executeSql("CREATE TABLE refused_value (host STRING, v DOUBLE, ts TIMESTAMP(3)) WITH ("
                    + SqlConnectorTest.with(s, "sink.parallelism", "1") + ")");
            String msg = failureOf(() -> t.executeSql("INSERT INTO refused_value VALUES"
                    + " ('a', 1.0, TIMESTAMP '2024-01-01 00:00:01'), ('b', 2.0, TIMESTAMP '2024-01-01 00:00:02'),"
                    + " ('bad', 3.0, TIMESTAMP '2024-01-01 00:00:03'), ('c', 4.0, TIMESTAMP '2024-01-01 00:00:04'),"
                    + " ('d', 5.0, TIMESTAMP '2024-01-01 00:00:05')").await());
            assertTrue(msg.contains("GreptimeDB refused element 3 of subtask 0 since it started: +I(host=bad, v=3.0,"
                    + " ts=2024-01-01T00:00:03) (table refused_value, column host): code 1004"), msg);
            assertTrue(msg.contains("Invalid value for column host: 'bad'"), msg);
            assertTrue(s.rows("refused_value").stream().noneMatch(r -> "bad".equals(r.get("host"))));
        } finally {
            s.faults().refuseValue(null, null, null, null);
        }
    }

    @Test
    void aRefusedValueInALargeBatchIsNarrowedToItsRow(GreptimeTestServer s) {
        s.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "Invalid value for column host: 'bad'");
        try {
            String msg = jobFailure("refused_large", () -> {
                StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
                TableSchema schema = TableSchema.newBuilder("refused_large").addTag("host", DataType.String)
                        .addTimestamp("ts", DataType.TimestampMillisecond).build();
                env.fromSequence(0, 999).returns(Types.LONG).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                        .batch(1_000, 8 << 20).flushInterval(Duration.ofSeconds(30))
                        .table(schema, (i, row) -> row.setString(0, i == 637 ? "bad" : "h" + i).setLong(1, i)).build());
                return env;
            });
            assertTrue(msg.contains("GreptimeDB refused element 638 of subtask 0 since it started: 637 (table"
                    + " refused_large, column host): code 1004"), msg);
            assertTrue(msg.matches("(?s).*It was in a batch of \\d+ rows the server refused.*"), msg);
        } finally {
            s.faults().refuseValue(null, null, null, null);
        }
    }

    /** A mutable element, handed on as the same object every time by {@link Reusing}. */
    public static final class Holder {
        /** The value. */
        public long v;

        /** Creates an empty holder (Flink's POJO rules). */
        public Holder() {
        }

        @Override
        public String toString() {
            return "Holder(" + v + ")";
        }
    }

    /** Emits one holder object over and over with a new value: what object reuse lets an operator do. */
    static final class Reusing extends org.apache.flink.api.common.functions.RichMapFunction<Long, Holder> {
        private static final long serialVersionUID = 1L;
        private transient Holder holder;

        @Override
        public Holder map(Long i) {
            if (holder == null) {
                holder = new Holder();
            }
            holder.v = i;
            return holder;
        }
    }

    @Test
    void withObjectReuseTheRefusedRowIsStillNamedByItsOwnValues(GreptimeTestServer s) {
        s.faults().refuseValue("host", "bad", StatusCode.InvalidArguments, "Invalid value for column host: 'bad'");
        try {
            String msg = jobFailure("refused_reused", () -> {
                StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
                env.getConfig().enableObjectReuse();
                TableSchema schema = TableSchema.newBuilder("refused_reused").addTag("host", DataType.String)
                        .addTimestamp("ts", DataType.TimestampMillisecond).build();
                env.fromSequence(0, 199).map(new Reusing()).returns(Holder.class)
                        .sinkTo(GreptimeSink.<Holder>builder().endpoints(s.endpoint())
                                .batch(1_000, 8 << 20).flushInterval(Duration.ofSeconds(30))
                                .table(schema, (h, row) -> row.setString(0, h.v == 37 ? "bad" : "h" + h.v).setLong(1, h.v))
                                .build());
                return env;
            });
            assertTrue(msg.contains("GreptimeDB refused element 38 of subtask 0 since it started: Holder(37) (table"
                    + " refused_reused, column host)"), msg);
        } finally {
            s.faults().reset();
        }
    }

    @Test
    void aBatchRefusedOnTheBulkPathNamesTheElementsItHeld(GreptimeTestServer s) {
        try {
            String msg = jobFailure("refused_bulk", () -> {
                s.faults().reset();
                s.faults().failBulkBatch(1, StatusCode.InvalidArguments, "Invalid value for column v");
                StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
                TableSchema schema = TableSchema.newBuilder("refused_bulk").addTag("host", DataType.String)
                        .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
                env.fromSequence(0, 99).returns(Types.LONG).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                        .writePath(WritePath.BULK).batch(1_000, 8 << 20).flushInterval(Duration.ofSeconds(30))
                        .table(schema, (i, row) -> row.setString(0, "h").setDouble(1, i).setLong(2, i)).build());
                return env;
            });
            assertTrue(msg.contains("Invalid value for column v"), msg);
            assertTrue(msg.matches("(?s).*The batch held elements 1 to \\d+ of subtask 0 since it started.*"), msg);
        } finally {
            s.faults().reset();
        }
    }

    @Test
    void aWrongPasswordFailsTheJobAtStart() throws Exception {
        try (GreptimeTestServer secured = GreptimeTestServer.builder().user("admin", "secret").start()) {
            TableEnvironment t = SqlConnectorTest.streaming();
            t.executeSql("CREATE TABLE guarded (host STRING, ts TIMESTAMP(3)) WITH ("
                    + SqlConnectorTest.with(secured, "username", "admin", "password", "wrong") + ")");
            String msg = failureOf(() -> t.executeSql("INSERT INTO guarded VALUES ('a', TIMESTAMP '2024-01-01"
                    + " 00:00:00')").await());
            assertTrue(msg.contains("refused the sink's start"), msg);
            assertTrue(msg.contains("as user 'admin'") && msg.contains("UNAUTHENTICATED"), msg);
            assertTrue(!msg.contains("wrong"), "the password is not in the message: " + msg);
            assertEquals(0, secured.rowCount("guarded"));
        }
    }

    @Test
    void aBatchRefusedBeyondTheRetriesFailsTheJobWithTheServersAnswer(GreptimeTestServer s) {
        server = s;
        try {
            String msg = jobFailure("refused", () -> {
                s.faults().failEvery(0, StatusCode.RateLimited, ""); // armed again by the job's first element
                StreamExecutionEnvironment env = FlinkJobs.env(1, 0);
                TableSchema schema = TableSchema.newBuilder("refused").addTag("host", DataType.String)
                        .addTimestamp("ts", DataType.TimestampMillisecond).build();
                env.fromSequence(0, 999).map(i -> {
                    if (i == 0) {
                        server.faults().failEvery(1, StatusCode.RateLimited, "too many writes, slow down");
                    }
                    return i;
                }).returns(Types.LONG).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                        .retry(3, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(10))
                        .table(schema, (i, row) -> row.setString(0, "h").setLong(1, i)).build());
                return env;
            });
            assertTrue(msg.contains("for table refused: code 6001"), msg);
            assertTrue(msg.contains("too many writes, slow down"), msg);
            assertTrue(msg.contains("retries ran out"), msg);
        } finally {
            s.faults().failEvery(0, StatusCode.RateLimited, "");
        }
    }
}
