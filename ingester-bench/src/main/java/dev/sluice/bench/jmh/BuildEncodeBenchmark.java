package dev.sluice.bench.jmh;

import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.write.RequestEncoder;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building and encoding a 1,000-row metrics batch, the way a caller pays for it: values arrive as Java values
 * (tag strings from pools, primitive doubles and longs), every row is checked, then the request is encoded. Run
 * with {@code -prof gc} to read allocation per row ({@code gc.alloc.rate.norm} is per row here):
 * {@code addRow} (an {@code Object[]} and a box per number), the typed appender into a fresh table per batch,
 * and the typed appender into one reused table.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class BuildEncodeBenchmark {
    static final int ROWS = 1_000;
    static final TableSchema METRICS = TableSchema.newBuilder("metrics")
            .addTag("host", DataType.String).addTag("region", DataType.String)
            .addTag("datacenter", DataType.String).addTag("service", DataType.String)
            .addField("cpu", DataType.Float64).addField("memory", DataType.Float64)
            .addField("disk_util", DataType.Float64).addField("net_in", DataType.Float64)
            .addField("net_out", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private final String[] hosts = new String[1_000];
    private final String[] regions = new String[5];
    private final String[] datacenters = new String[10];
    private final String[] services = new String[20];
    private final double[] values = new double[1 << 12];
    private byte[] headerBytes;
    private byte[] buffer;
    private Table reused;
    private long batch;

    /** Precomputes the pools the rows draw from. */
    @Setup
    public void setup() {
        for (int i = 0; i < hosts.length; i++) {
            hosts[i] = "host_" + i;
        }
        for (int i = 0; i < regions.length; i++) {
            regions[i] = "region_" + i;
        }
        for (int i = 0; i < datacenters.length; i++) {
            datacenters[i] = "dc_" + i;
        }
        for (int i = 0; i < services.length; i++) {
            services[i] = "svc_" + i;
        }
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < values.length; i++) {
            values[i] = r.nextDouble() * 100;
        }
        headerBytes = RequestHeader.newBuilder().setDbname("public").build().toByteArray();
        buffer = new byte[1 << 20];
        reused = Table.from(METRICS, ROWS);
    }

    private int encode(Table t) throws IOException {
        RequestEncoder e = new RequestEncoder(headerBytes, WriteOp.Insert, List.of(t));
        return e.encode(buffer);
    }

    /**
     * {@code addRow(Object...)}: one array and five boxed doubles and a boxed long per row.
     *
     * @return bytes encoded
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int addRow() throws IOException {
        Table t = Table.from(METRICS, ROWS);
        long base = batch++ * ROWS;
        for (int i = 0; i < ROWS; i++) {
            long n = base + i;
            int v = (int) (n & (values.length - 1));
            t.addRow(hosts[(int) (n % 1_000)], regions[(int) (n % 5)], datacenters[(int) (n % 10)],
                    services[(int) (n % 20)], values[v], values[(v + 1) & (values.length - 1)],
                    values[(v + 2) & (values.length - 1)], values[(v + 3) & (values.length - 1)] * 1e7,
                    values[(v + 4) & (values.length - 1)] * 1e7, 1_704_067_200_000L + n);
        }
        return encode(t.complete());
    }

    private void append(Table t) {
        RowAppender a = t.appender();
        long base = batch++ * ROWS;
        for (int i = 0; i < ROWS; i++) {
            long n = base + i;
            int v = (int) (n & (values.length - 1));
            a.setString(0, hosts[(int) (n % 1_000)]).setString(1, regions[(int) (n % 5)])
                    .setString(2, datacenters[(int) (n % 10)]).setString(3, services[(int) (n % 20)])
                    .setDouble(4, values[v]).setDouble(5, values[(v + 1) & (values.length - 1)])
                    .setDouble(6, values[(v + 2) & (values.length - 1)])
                    .setDouble(7, values[(v + 3) & (values.length - 1)] * 1e7)
                    .setDouble(8, values[(v + 4) & (values.length - 1)] * 1e7)
                    .setLong(9, 1_704_067_200_000L + n).endRow();
        }
    }

    /**
     * The typed appender into a new table per batch (its column arrays are the garbage left).
     *
     * @return bytes encoded
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int appenderNewTable() throws IOException {
        Table t = Table.from(METRICS, ROWS);
        append(t);
        return encode(t.complete());
    }

    /**
     * The typed appender into one table reused for every batch (what a caller does once each write completed).
     *
     * @return bytes encoded
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int appenderReusedTable() throws IOException {
        Table t = reused.reset();
        append(t);
        return encode(t.complete());
    }
}
