package dev.sluice.spark.deletes;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.GreptimeCatalog;
import dev.sluice.spark.LocalSpark;
import dev.sluice.sql.HttpSql;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spark deletes rows through the connector's shared delete scheme: {@code DELETE FROM} and overwriting a time range
 * read the matching keys and delete them through held, ordered deletes (sent per table when a table holds a batch
 * of them), before the overwrite's rows are written, often to the very keys just deleted. A random sequence of
 * appends, range overwrites and deletes through the catalog leaves the table as applying them in order would.
 */
class OverwritesDeletesAndAppendsThroughTheCatalogEndAsApplyingThemInOrderTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = new GreptimeTestkitExtension(
            GreptimeTestServer.builder().httpPort(0));
    private static final long T0 = 1_704_067_200_000L;
    private static final String[] HOSTS = {"a", "b", "c", "d", "e"};
    /** Seconds a row's time may take. */
    private static final int SECONDS = 120;
    /** Small batches: the held deletes of one statement go out in several sends. */
    private static final int BATCH_ROWS = 40;

    private static SparkSession session(GreptimeTestServer server) {
        SparkSession s = LocalSpark.session();
        s.conf().set("spark.sql.catalog.gtdel", GreptimeCatalog.class.getName());
        s.conf().set("spark.sql.catalog.gtdel.endpoints", server.endpoint());
        s.conf().set("spark.sql.catalog.gtdel.httpEndpoint", server.httpEndpoint());
        s.conf().set("spark.sql.catalog.gtdel.batchRows", String.valueOf(BATCH_ROWS));
        return s;
    }

    private static String key(String host, long second) {
        return host + "@" + second;
    }

    /** Rows as a VALUES query: host, usage, ts. */
    private static String values(Map<String, Double> rows) {
        StringBuilder b = new StringBuilder("SELECT host, usage, ts FROM VALUES ");
        String sep = "";
        for (Map.Entry<String, Double> r : rows.entrySet()) {
            String k = r.getKey();
            b.append(sep).append("('").append(k, 0, k.indexOf('@')).append("', ").append(r.getValue())
                    .append("D, timestamp_millis(").append(T0 + second(k) * 1000).append("))");
            sep = ", ";
        }
        return b.append(" AS t(host, usage, ts)").toString();
    }

    private static long second(String key) {
        return Long.parseLong(key.substring(key.indexOf('@') + 1));
    }

    /**
     * Up to {@code n} rows of random hosts at random seconds in {@code [from, to)}, one per key (the tasks of one
     * statement may write in any order), each with the next usage.
     */
    private static Map<String, Double> rows(Random random, int n, long from, long to, double[] next) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            out.putIfAbsent(key(HOSTS[random.nextInt(HOSTS.length)], from + random.nextInt((int) (to - from))),
                    ++next[0]);
        }
        return out;
    }

    private static Timestamp at(long second) {
        return Timestamp.from(Instant.ofEpochMilli(T0 + second * 1000));
    }

    private static Map<String, Double> stored(GreptimeTestServer server) {
        Map<String, Double> out = new TreeMap<>();
        for (Map<String, Object> r : server.rows("ordered")) {
            out.put(key((String) r.get("host"), ((Long) r.get("ts") - T0) / 1000), (Double) r.get("usage"));
        }
        return out;
    }

    @Test
    void theStoredTableIsTheOperationsAppliedInOrder(GreptimeTestServer server) throws Exception {
        HttpSql.newBuilder(server.httpEndpoint(), "public").build().execute("CREATE TABLE ordered (host STRING,"
                + " usage DOUBLE, ts TIMESTAMP(3) TIME INDEX, PRIMARY KEY (host))");
        SparkSession s = session(server);
        Random random = new Random(20_261_207L);
        Map<String, Double> expected = new TreeMap<>();
        double[] next = {0};
        int deletedKeys = 0;
        for (int step = 0; step < 12; step++) {
            int kind = step < 2 ? 0 : random.nextInt(3);
            if (kind == 0) {
                // Append rows spread over every host and time.
                Map<String, Double> rows = rows(random, 150, 0, SECONDS, next);
                s.sql(values(rows)).writeTo("gtdel.public.ordered").append();
                expected.putAll(rows);
            } else if (kind == 1) {
                // Overwrite a time range with rows inside it, many at keys the overwrite deletes first.
                long from = random.nextInt(SECONDS / 2);
                long to = from + 20 + random.nextInt(SECONDS / 2);
                Map<String, Double> rows = rows(random, 60, from, to, next);
                s.sql(values(rows)).writeTo("gtdel.public.ordered")
                        .overwrite(col("ts").geq(lit(at(from))).and(col("ts").lt(lit(at(to)))));
                int before = expected.size();
                expected.keySet().removeIf(k -> second(k) >= from && second(k) < to);
                deletedKeys += before - expected.size();
                expected.putAll(rows);
            } else {
                // Delete one host's rows from a time on.
                String h = HOSTS[random.nextInt(HOSTS.length)];
                long from = random.nextInt(SECONDS);
                s.sql("DELETE FROM gtdel.public.ordered WHERE host = '" + h + "' AND ts >= timestamp_millis("
                        + (T0 + from * 1000) + ")");
                int before = expected.size();
                expected.keySet().removeIf(k -> k.startsWith(h + "@") && second(k) >= from);
                deletedKeys += before - expected.size();
            }
            assertEquals(expected, stored(server), "after step " + step);
        }
        long deleteRequests = server.requests().stream().filter(r -> r.kind().equals("delete")).count();
        assertTrue(deletedKeys > BATCH_ROWS, "the sequence deletes more rows (" + deletedKeys + ") than a batch holds");
        assertTrue(deleteRequests > 0 && deleteRequests < deletedKeys, deletedKeys + " rows deleted by "
                + deleteRequests + " delete requests: held deletes share requests");
    }
}
