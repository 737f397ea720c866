package dev.sluice.spark;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One local Spark session for the test JVM: two cores, up to three attempts per task ({@code local[2,3]}), two
 * shuffle partitions, no UI. Every test takes its session from here: Spark keeps one session per JVM, and the first
 * one built decides the master for all.
 */
public final class LocalSpark {
    private static SparkSession session;

    private LocalSpark() {
    }

    /**
     * Returns the test JVM's session, building it on first use.
     *
     * @return the session
     */
    public static synchronized SparkSession session() {
        if (session == null) {
            session = SparkSession.builder().appName("sluice-spark-tests").master("local[2,3]")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.default.parallelism", "2")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.session.timeZone", "UTC")
                    .config("spark.sql.datetime.java8API.enabled", "true")
                    .config("spark.driver.host", "127.0.0.1")
                    .getOrCreate();
        }
        return session;
    }

    /** @return a testkit serving gRPC and GreptimeDB's HTTP SQL API, started once per test class */
    public static GreptimeTestkitExtension testkit() {
        return new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));
    }

    /** Writes a DataFrame to the testkit through the greptimedb source. */
    public static void write(Dataset<Row> df, GreptimeTestServer server, String table, String mode, String... options) {
        var w = df.write().format("greptimedb").option("endpoints", server.endpoint())
                .option("httpEndpoint", server.httpEndpoint()).option("table", table);
        for (int i = 0; i < options.length; i += 2) {
            w = w.option(options[i], options[i + 1]);
        }
        w.mode(mode).save();
    }

    /** The stored rows of a table, by the value of one column. */
    static Map<Object, Map<String, Object>> byKey(List<Map<String, Object>> rows, String column) {
        Map<Object, Map<String, Object>> out = new HashMap<>();
        for (Map<String, Object> r : rows) {
            if (out.put(r.get(column), r) != null) {
                throw new AssertionError("two stored rows have " + column + " = " + r.get(column));
            }
        }
        return out;
    }

    /** Adds the SQL metrics of a physical plan and of every plan inside it, by name. */
    static void collectMetrics(SparkPlan plan, Map<String, Long> out) {
        for (Map.Entry<String, SQLMetric> e : CollectionConverters.asJava(plan.metrics()).entrySet()) {
            out.put(e.getKey(), e.getValue().value());
        }
        for (Object child : CollectionConverters.asJava(plan.children())) {
            collectMetrics((SparkPlan) child, out);
        }
        for (Object inner : CollectionConverters.asJava(plan.innerChildren())) {
            if (inner instanceof SparkPlan p) {
                collectMetrics(p, out);
            }
        }
    }

    static List<String> names(List<Map<String, Object>> rows) {
        return rows.isEmpty() ? List.of() : new ArrayList<>(rows.get(0).keySet());
    }
}
