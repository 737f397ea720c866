package dev.sluice.importer.internal.source;

import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.importer.internal.plan.Mapping;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.plan.TypeNames;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The CPU the import spends reading a file, per row, on one thread: parsing alone, then parsing and converting
 * each value into a table (what the import does before handing rows to a writer). Not a test: a measurement.
 *
 * <pre>java -cp ingester-import/target/sluice-import.jar:ingester-import/target/test-classes \
 *     dev.sluice.importer.internal.source.ReadCost FILE.csv|FILE.parquet [tag,tag...] [rounds]</pre>
 */
public final class ReadCost {
    private ReadCost() {
    }

    /**
     * Entry point.
     *
     * @param args the file (CSV, or Parquet by its .parquet name), the tags, the rounds
     * @throws Exception when the file cannot be read
     */
    public static void main(String[] args) throws Exception {
        Path file = Paths.get(args[0]);
        List<String> tags = args.length > 1 && !args[1].isEmpty() ? List.of(args[1].split(",")) : List.of();
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CsvSource.Settings settings = new CsvSource.Settings(',', '"', (char) 0, true, null, "", (char) 0);
        boolean parquet = file.toString().endsWith(".parquet");
        Sampled sample;
        Map<String, TypeNames.Type> declared = null;
        try (RecordSource src = open(file, parquet, settings)) {
            if (src instanceof ParquetSource p) {
                declared = TypeNames.of(p.types());
            }
            sample = new Sampled(src, 1000);
        }
        Mapping m = new Mapping("cost", null, null, tags, Map.of(), new LinkedHashSet<>(), new LinkedHashMap<>(),
                ZoneOffset.UTC, Map.of());
        Plan plan = Plan.build(sample.columns(), sample.rows(), false, m, null, false, declared);
        for (int r = 0; r < rounds; r++) {
            long rows = 0;
            long t0 = mx.getCurrentThreadCpuTime();
            try (RecordSource src = open(file, parquet, settings)) {
                src.readValuesAtOnce(); // as the import reads
                int n = src.columns().size();
                long sink = 0;
                while (src.next()) {
                    for (int c = 0; c < n; c++) {
                        Object v = src.value(c);
                        sink += v == null ? 0 : 1;
                    }
                    rows++;
                }
                if (sink < 0) {
                    System.out.println(sink);
                }
            }
            long parse = mx.getCurrentThreadCpuTime() - t0;
            t0 = mx.getCurrentThreadCpuTime();
            try (RecordSource src = open(file, parquet, settings)) {
                src.readValuesAtOnce();
                int[] bind = plan.bind(src.columns());
                Table t = Table.from(plan.schema(), 20_000);
                RowAppender a = t.appender();
                while (src.next()) {
                    for (int c = 0; c < bind.length; c++) {
                        Object v = src.value(bind[c]);
                        if (v != null) {
                            plan.values().set(a, c, v);
                        }
                    }
                    a.endRow();
                    if (t.rowCount() == 20_000) {
                        t.reset();
                    }
                }
            }
            long convert = mx.getCurrentThreadCpuTime() - t0;
            System.out.printf("round %d: %,d rows; parse %.2f us/row, parse+convert %.2f us/row (CPU of one thread)%n",
                    r + 1, rows, parse / 1e3 / rows, convert / 1e3 / rows);
        }
    }

    private static RecordSource open(Path file, boolean parquet, CsvSource.Settings settings) throws IOException {
        if (parquet) {
            return new ParquetSource(file, file.toString(), Set.of(), ZoneOffset.UTC, new AtomicLong());
        }
        InputStream is = Inputs.open(new Inputs.Input(file.toString(), file, Format.CSV, null, 0), new AtomicLong());
        return new CsvSource(is, settings, file.toString());
    }
}
