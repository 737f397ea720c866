package dev.sluice.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code SELECT count(*) FROM t} is answered from the table's row count, however the name is written (quoted in
 * backticks or double quotes, as clients quote it, qualified by its database, in other letter cases), and never by
 * copying the table into the query engine, which for a table of millions of rows takes seconds.
 */
class CountOfAWholeTableTest {
    private static final int ROWS = 100_000;

    private static SqlService serviceWithRows() {
        Storage storage = new Storage(true);
        SqlService sql = new SqlService(storage);
        sql.execute("public", "CREATE TABLE cpu (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))");
        List<TableSchema.Column> columns = List.of(
                new TableSchema.Column("host", SemanticType.Tag, DataType.String, null),
                new TableSchema.Column("v", SemanticType.Field, DataType.Float64, null),
                new TableSchema.Column("ts", SemanticType.Timestamp, DataType.TimestampMillisecond, null));
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(new Object[] {"h" + (i % 10), (double) i, 1_700_000_000_000L + i});
        }
        storage.bulkInsert("public", "cpu", columns, rows);
        return sql;
    }

    private static long count(SqlService sql, String statement) {
        return ((Number) sql.execute("public", statement).rows().get(0).get(0)).longValue();
    }

    @Test
    void everyWayOfNamingTheTableCountsItsRows() {
        SqlService sql = serviceWithRows();
        for (String statement : List.of("SELECT count(*) FROM cpu", "select COUNT( * ) from cpu;",
                "SELECT count(*) FROM `cpu`", "SELECT count(*) FROM \"cpu\"", "SELECT count(*) FROM public.cpu",
                "SELECT count(*) FROM `public`.`cpu`", "SELECT count(*) FROM CPU")) {
            assertEquals(ROWS, count(sql, statement), statement);
        }
    }

    @Test
    void aCountOfAMissingTableIsTableNotFound() {
        SqlService sql = serviceWithRows();
        ServerError e = assertThrows(ServerError.class, () -> sql.execute("public", "SELECT count(*) FROM `nope`"));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
    }

    @Test
    void countingAQuotedTableNameDoesNotCopyTheTable() {
        SqlService sql = serviceWithRows();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        count(sql, "SELECT count(*) FROM `cpu`"); // classes loaded
        for (String statement : List.of("SELECT count(*) FROM `cpu`", "SELECT count(*) FROM \"public\".\"cpu\"")) {
            long before = threads.getCurrentThreadAllocatedBytes();
            assertEquals(ROWS, count(sql, statement));
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // A copy of 100,000 rows into the query engine allocates tens of megabytes.
            assertTrue(allocated < 1 << 20, statement + ": " + allocated + " bytes allocated to count the rows");
        }
    }
}
