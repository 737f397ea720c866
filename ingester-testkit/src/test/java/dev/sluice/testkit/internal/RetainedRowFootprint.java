package dev.sluice.testkit.internal;

import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

/**
 * Measures the heap a retained metrics row costs in the testkit's storage (a measurement, not a test):
 * {@code java -cp <test classpath> dev.sluice.testkit.internal.RetainedRowFootprint [rows]}. The rows are the
 * benchmark's metrics shape (tags host/region/datacenter/service with 1,000/5/10/20 values, five FLOAT64 fields,
 * a millisecond time index, every row a new key), inserted through the same path as a gRPC row insert; the heap
 * is read after full collections before and after.
 */
public final class RetainedRowFootprint {
    private RetainedRowFootprint() {
    }

    static ColumnSchema col(String name, ColumnDataType t, SemanticType s) {
        return ColumnSchema.newBuilder().setColumnName(name).setDatatype(t).setSemanticType(s).build();
    }

    static long usedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100); // lets the collector finish between readings of the heap; the lowest reading counts
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /**
     * Entry point.
     *
     * @param args optional row count (default 2,000,000)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        List<ColumnSchema> schema = List.of(col("host", ColumnDataType.STRING, SemanticType.TAG),
                col("region", ColumnDataType.STRING, SemanticType.TAG), col("datacenter", ColumnDataType.STRING, SemanticType.TAG),
                col("service", ColumnDataType.STRING, SemanticType.TAG), col("cpu", ColumnDataType.FLOAT64, SemanticType.FIELD),
                col("memory", ColumnDataType.FLOAT64, SemanticType.FIELD), col("disk_util", ColumnDataType.FLOAT64, SemanticType.FIELD),
                col("net_in", ColumnDataType.FLOAT64, SemanticType.FIELD), col("net_out", ColumnDataType.FLOAT64, SemanticType.FIELD),
                col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP));
        String[] regions = {"us-east", "us-west", "eu-central", "ap-south", "sa-east"};
        Storage storage = new Storage(true);
        long before = usedAfterGc();
        int batch = 10_000;
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        for (int start = 0; start < n; start += batch) {
            Rows.Builder rows = Rows.newBuilder().addAllSchema(schema);
            for (int i = start; i < Math.min(n, start + batch); i++) {
                int series = i % 1_000_000;
                Row.Builder r = Row.newBuilder()
                        .addValues(Value.newBuilder().setStringValue(String.format("host-%04d", series % 1000)))
                        .addValues(Value.newBuilder().setStringValue(regions[(series / 1000) % 5]))
                        .addValues(Value.newBuilder().setStringValue("dc-" + (series / 5000) % 10))
                        .addValues(Value.newBuilder().setStringValue("svc-" + (series / 50_000) % 20));
                for (int f = 0; f < 5; f++) {
                    r.addValues(Value.newBuilder().setF64Value(random.nextInt(1 << 16) * (100.0 / (1 << 16))));
                }
                r.addValues(Value.newBuilder().setTimestampMillisecondValue(1_704_067_200_000L + i));
                rows.addRows(r);
            }
            storage.insert("public", "bench_metrics", rows.build(), Map.of());
        }
        long after = usedAfterGc();
        if (storage.rowCount("public", "bench_metrics") != n) {
            throw new IllegalStateException("stored " + storage.rowCount("public", "bench_metrics") + " of " + n);
        }
        System.out.printf("rows=%d retained heap=%.1f MiB bytes/row=%.1f%n", n, (after - before) / 1048576.0,
                (after - before) / (double) n);
    }
}
