package dev.sluice.flink.connection;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.testjobs.SqlJobs;
import java.time.ZoneId;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;

/**
 * A column the bulk path cannot carry (a MAP, written as JSON) is refused at planning, naming the table and the
 * column; when the bulk path was chosen by option 'connection' ({@code write_path=bulk}), the refusal's next step is
 * the string's key, since option 'write.path' beside the string is itself refused.
 */
class ABulkPathChosenByTheConnectionStringIsWhatTheRefusalNamesTest {
    @Test
    void theRefusalPointsAtTheStringsWritePath() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().setLocalTimeZone(ZoneId.of("UTC"));
        t.executeSql("CREATE TABLE docs (host STRING, attrs MAP<STRING, STRING>, ts TIMESTAMP(3)) WITH"
                + " ('connector'='greptimedb', 'connection'='greptimedb://127.0.0.1:4001/public?write_path=bulk',"
                + " 'http-endpoint'='none')");
        Exception e = assertThrows(Exception.class, () -> t.explainSql(
                "INSERT INTO docs VALUES ('a', MAP['k', 'v'], TIMESTAMP '2024-01-01 00:00:00')"));
        String m = SqlJobs.messages(e);
        assertTrue(m.contains("docs") && m.contains("attrs"), m);
        assertTrue(m.contains("write_path"), "the refusal names the string's write_path: " + m);
        assertFalse(m.contains("use 'write.path'='regular'"),
                "'write.path' beside 'connection' is refused, so it is no next step: " + m);
    }
}
