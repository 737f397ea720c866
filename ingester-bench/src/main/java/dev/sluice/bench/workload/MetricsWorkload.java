package dev.sluice.bench.workload;

import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Host metrics: tags host (1,000), region (5), datacenter (10), service (20), 1,000,000 series in all; row
 * {@code i} belongs to series {@code i mod 1,000,000}; fields cpu, memory, disk_util in [0, 100) and net_in,
 * net_out in [0, 1e9); {@code ts} = 2024-01-01T00:00:00Z + i milliseconds.
 *
 * <p>Field values come from pools of 4,096 boxed values per range (steps of 100/4,096 and 1e9/4,096), drawn
 * uniformly: the row API takes objects, and boxing five fresh doubles per row cost as much as a tenth of the
 * bulk path's own CPU. The pools are small enough (64 KiB of {@code Double}s each) to stay in a core's cache, as a
 * caller's freshly made values are: pools of 65,536 (1 MiB each, read at random) made a cache miss on nearly every
 * value the client read, about half of {@code Table.addRow}'s time on this project's 2-core machine.
 */
public final class MetricsWorkload implements Workload {
    private static final long START = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    private static final String[] REGIONS = {"us-east", "us-west", "eu-central", "ap-south", "sa-east"};

    private static final int POOL = 1 << 12;
    private static final double PERCENT_STEP = 100.0 / POOL;
    private static final double BYTES_STEP = 1e9 / POOL;
    private static final Double[] PERCENTS = new Double[POOL];
    private static final Double[] BYTES = new Double[POOL];

    static {
        for (int k = 0; k < POOL; k++) {
            PERCENTS[k] = k * PERCENT_STEP;
            BYTES[k] = k * BYTES_STEP;
        }
    }

    private final long seed;
    private final TableSchema schema;
    private final String[] hosts = new String[1_000];
    private final String[] datacenters = new String[10];
    private final String[] services = new String[20];

    /**
     * Creates the workload.
     *
     * @param seed random seed (the reference runs use 42)
     */
    public MetricsWorkload(long seed) {
        this.seed = seed;
        this.schema = TableSchema.newBuilder("bench_metrics")
                .addTag("host", DataType.String).addTag("region", DataType.String)
                .addTag("datacenter", DataType.String).addTag("service", DataType.String)
                .addField("cpu", DataType.Float64).addField("memory", DataType.Float64)
                .addField("disk_util", DataType.Float64).addField("net_in", DataType.Float64)
                .addField("net_out", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        for (int i = 0; i < hosts.length; i++) {
            hosts[i] = String.format("host-%04d", i);
        }
        for (int i = 0; i < datacenters.length; i++) {
            datacenters[i] = "dc-" + i;
        }
        for (int i = 0; i < services.length; i++) {
            services[i] = "svc-" + i;
        }
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public void fill(Consumer<Object[]> sink, long first, int count) {
        Object[] row = new Object[schema.columnCount()];
        for (long i = first; i < first + count; i++) {
            int series = (int) (i % 1_000_000);
            // Two mixes per row give the five fields' pool indexes, from separate 16-bit lanes of each.
            long a = SplitMix.mix(seed, i, 1);
            long b = SplitMix.mix(seed, i, 2);
            row[0] = hosts[series % 1_000];
            row[1] = REGIONS[(series / 1_000) % 5];
            row[2] = datacenters[(series / 5_000) % 10];
            row[3] = services[(series / 50_000) % 20];
            row[4] = PERCENTS[(int) (a >>> 48) & (POOL - 1)];
            row[5] = PERCENTS[(int) (a >>> 32) & (POOL - 1)];
            row[6] = PERCENTS[(int) (a >>> 16) & (POOL - 1)];
            row[7] = BYTES[(int) (b >>> 48) & (POOL - 1)];
            row[8] = BYTES[(int) (b >>> 32) & (POOL - 1)];
            row[9] = START + i;
            sink.accept(row);
        }
    }

    /** The same rows as {@link #fill}: the fields as the pools' values, computed instead of read from the pools. */
    @Override
    public void append(RowAppender a, long first, int count) {
        for (long i = first; i < first + count; i++) {
            int series = (int) (i % 1_000_000);
            long x = SplitMix.mix(seed, i, 1);
            long y = SplitMix.mix(seed, i, 2);
            a.setString(0, hosts[series % 1_000]);
            a.setString(1, REGIONS[(series / 1_000) % 5]);
            a.setString(2, datacenters[(series / 5_000) % 10]);
            a.setString(3, services[(series / 50_000) % 20]);
            a.setDouble(4, ((int) (x >>> 48) & (POOL - 1)) * PERCENT_STEP);
            a.setDouble(5, ((int) (x >>> 32) & (POOL - 1)) * PERCENT_STEP);
            a.setDouble(6, ((int) (x >>> 16) & (POOL - 1)) * PERCENT_STEP);
            a.setDouble(7, ((int) (y >>> 48) & (POOL - 1)) * BYTES_STEP);
            a.setDouble(8, ((int) (y >>> 32) & (POOL - 1)) * BYTES_STEP);
            a.setLong(9, START + i);
            a.endRow();
        }
    }
}
