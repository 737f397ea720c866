package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server that takes a batch and never answers: the failure says no answer came within the request timeout from
 * which endpoint (not that the server refused anything), and what the job does next.
 *
 * <p>The jobs take no checkpoints. A checkpoint makes Flink hold the events the source's coordinator sends (the
 * last one says no split is left) until the task's checkpoint barrier is out, and the sink's flush before that
 * barrier waits for the silent server until the batch fails; Flink may then report the held event as lost instead
 * of the sink's failure. Without checkpoints the sink raises the failure only when it takes an element (the source
 * has then asked for no event yet) or at the end of the input (every event has then arrived).
 */
class TimeoutReportingTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkJobs.miniCluster();
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension();
    /** The server the jobs' first element turns silent (the sink's start still gets its answers). */
    static volatile GreptimeTestServer server;

    /** Turns the server silent at the stream's first element, after every writer started. */
    private static DataStream<Long> silencingSource(StreamExecutionEnvironment env) {
        return env.fromSequence(0, 99).map(i -> {
            if (i == 0) {
                server.faults().neverRespond(true);
            }
            return i;
        }).returns(Types.LONG);
    }

    private static String failure(StreamExecutionEnvironment env) {
        return SqlConnectorTest.fullMessage(assertThrows(Exception.class, () -> env.execute("silent")));
    }

    @Test
    void anSqlJobWithoutRestartsSaysNoAnswerCameAndThatItStaysFailed(GreptimeTestServer s) {
        server = s;
        try {
            StreamExecutionEnvironment env = FlinkJobs.envWithoutCheckpoints(1, 0);
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            t.createTemporaryView("numbers", silencingSource(env));
            t.executeSql("CREATE TABLE silent_sql (host STRING, v DOUBLE, ts TIMESTAMP_LTZ(3)) WITH ("
                    + SqlConnectorTest.with(s, "request-timeout", "1 s", "sink.retry.max-attempts", "2",
                    "sink.retry.backoff", "10 ms", "sink.retry.timeout", "3 s") + ")");
            String msg = SqlConnectorTest.fullMessage(assertThrows(Exception.class, () -> t.executeSql(
                    "INSERT INTO silent_sql SELECT 'h', CAST(f0 AS DOUBLE), TO_TIMESTAMP_LTZ(f0, 3) FROM numbers")
                    .await()));
            assertTrue(msg.contains("no answer within 1 s from " + s.endpoint()), msg);
            assertTrue(msg.contains("silent_sql"), msg);
            assertTrue(msg.contains("at most 2 attempts within sink.retry.timeout (3 s)"), msg);
            assertFalse(msg.contains("refused"), "a silent server refused nothing: " + msg);
            assertTrue(msg.contains("restart-strategy.type is none: the job stays failed"), msg);
        } finally {
            s.faults().neverRespond(false);
        }
    }

    @Test
    void aDataStreamJobSaysNoAnswerCameAndWhatARestartStrategyWouldDo(GreptimeTestServer s) {
        server = s;
        try {
            StreamExecutionEnvironment env = FlinkJobs.envWithoutCheckpoints(1, 0);
            TableSchema schema = TableSchema.newBuilder("silent_ds").addTag("host", DataType.String)
                    .addTimestamp("ts", DataType.TimestampMillisecond).build();
            silencingSource(env).sinkTo(GreptimeSink.<Long>builder().endpoints(s.endpoint())
                    .requestTimeout(Duration.ofSeconds(1))
                    .retry(2, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(3))
                    .table(schema, (i, row) -> row.setString(0, "h").setLong(1, i)).build());
            String msg = failure(env);
            assertTrue(msg.contains("no answer within 1 s from " + s.endpoint()), msg);
            assertFalse(msg.contains("refused"), "a silent server refused nothing: " + msg);
            assertFalse(msg.contains("the job restarts from its last checkpoint"),
                    "the sink cannot see this job's restart strategy: " + msg);
            assertTrue(msg.contains("if its restart strategy allows"), msg);
        } finally {
            s.faults().neverRespond(false);
        }
    }
}
