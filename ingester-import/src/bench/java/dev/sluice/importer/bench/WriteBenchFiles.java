package dev.sluice.importer.bench;

import dev.sluice.bench.workload.LogWorkload;
import dev.sluice.bench.workload.MetricsWorkload;
import dev.sluice.bench.workload.Workload;
import dev.sluice.data.TableSchema;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the benchmark's workload rows (ingester-bench's generators, seed 42) as CSV or Parquet files (Snappy
 * pages, row groups of 100,000 rows), split into parts so the import reads them in parallel as the benchmark's
 * writers send in parallel. Compiled only with {@code -Pbench} (see the module's README, "Benchmark").
 *
 * <pre>java -cp ingester-import/target/sluice-import.jar:ingester-bench/target/ingester-bench.jar:ingester-import/target/test-classes \
 *     dev.sluice.importer.bench.WriteBenchFiles metrics|logs ROWS PARTS DIR [csv|parquet]</pre>
 */
public final class WriteBenchFiles {
    private WriteBenchFiles() {
    }

    /**
     * Entry point.
     *
     * @param args workload, rows, parts, directory, and csv (default) or parquet
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Workload w = args[0].equals("logs") ? new LogWorkload(42) : new MetricsWorkload(42);
        long rows = Long.parseLong(args[1]);
        int parts = Integer.parseInt(args[2]);
        Path dir = Files.createDirectories(Paths.get(args[3]));
        TableSchema s = w.schema();
        List<String> names = new ArrayList<>();
        s.columns().forEach(c -> names.add(c.name()));
        long per = (rows + parts - 1) / parts;
        long t0 = System.nanoTime();
        if (args.length > 4 && args[4].equals("parquet")) {
            writeParquet(args[0], w, rows, parts, per, dir);
            System.out.printf("written in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            return;
        }
        for (int p = 0; p < parts; p++) {
            long first = p * per;
            long n = Math.min(per, rows - first);
            Path f = dir.resolve(args[0] + "-" + p + ".csv");
            try (BufferedWriter out = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                out.write(String.join(",", names));
                out.write('\n');
                StringBuilder sb = new StringBuilder(4096);
                for (long i = first; i < first + n; i += 10_000) {
                    int count = (int) Math.min(10_000, first + n - i);
                    w.fill(row -> {
                        sb.setLength(0);
                        for (int c = 0; c < row.length; c++) {
                            if (c > 0) {
                                sb.append(',');
                            }
                            String v = String.valueOf(row[c]);
                            if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0) {
                                sb.append('"').append(v.replace("\"", "\"\"")).append('"');
                            } else {
                                sb.append(v);
                            }
                        }
                        sb.append('\n');
                        try {
                            out.write(sb.toString());
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }, i, count);
                }
            }
            System.out.println(f + " " + n + " rows, " + Files.size(f) / 1_000_000 + " MB");
        }
        System.out.printf("written in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    private static void writeParquet(String name, Workload w, long rows, int parts, long per, Path dir)
            throws IOException {
        TableSchema s = w.schema();
        StringBuilder schema = new StringBuilder("message ").append(name).append(" {");
        for (TableSchema.Column c : s.columns()) {
            switch (c.dataType()) {
                case String: schema.append(" optional binary ").append(c.name()).append(" (STRING);"); break;
                case Float64: schema.append(" optional double ").append(c.name()).append(';'); break;
                case Int64: schema.append(" optional int64 ").append(c.name()).append(';'); break;
                case TimestampMillisecond:
                    schema.append(" required int64 ").append(c.name()).append(" (TIMESTAMP(MILLIS,true));");
                    break;
                default: throw new IllegalArgumentException("no Parquet type for " + c.dataType());
            }
        }
        schema.append(" }");
        for (int p = 0; p < parts; p++) {
            long first = p * per;
            long n = Math.min(per, rows - first);
            Path f = dir.resolve(name + "-" + p + ".parquet");
            Files.deleteIfExists(f);
            dev.sluice.importer.ParquetFiles.write(f, schema.toString(),
                    org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY,
                    org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_1_0, 100_000, (g, out) -> {
                        for (long i = first; i < first + n; i += 10_000) {
                            int count = (int) Math.min(10_000, first + n - i);
                            w.fill(row -> {
                                org.apache.parquet.example.data.Group grp = g.newGroup();
                                for (int c = 0; c < row.length; c++) {
                                    Object v = row[c];
                                    if (v == null) {
                                        continue;
                                    }
                                    String col = s.column(c).name();
                                    if (v instanceof Double d) {
                                        grp.append(col, d);
                                    } else if (v instanceof Long l) {
                                        grp.append(col, l);
                                    } else {
                                        grp.append(col, v.toString());
                                    }
                                }
                                out.accept(grp);
                            }, i, count);
                        }
                    });
            System.out.println(f + " " + n + " rows, " + Files.size(f) / 1_000_000 + " MB");
        }
    }
}
