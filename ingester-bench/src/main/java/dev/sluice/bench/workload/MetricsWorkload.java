package dev.sluice.bench.workload;

import dev.sluice.DataType;
import dev.sluice.TableSchema;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Host metrics: tags host (1,000), region (5), datacenter (10), service (20), 1,000,000 series in all; row
 * {@code i} belongs to series {@code i mod 1,000,000}; fields cpu, memory, disk_util in [0, 100) and net_in,
 * net_out in [0, 1e9); {@code ts} = 2024-01-01T00:00:00Z + i milliseconds.
 */
public final class MetricsWorkload implements Workload {
    private static final long START = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    private static final String[] REGIONS = {"us-east", "us-west", "eu-central", "ap-south", "sa-east"};

    private static final long MASK21 = (1L << 21) - 1;
    private static final double NET_SCALE = 1e9 / 4_294_967_296.0;

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

    private static double percent(long bits21) {
        return bits21 * (100.0 / (1 << 21));
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
            // Two mixes per row give the five fields: three 21-bit and two 32-bit uniform draws.
            long a = SplitMix.mix(seed, i, 1);
            long b = SplitMix.mix(seed, i, 2);
            row[0] = hosts[series % 1_000];
            row[1] = REGIONS[(series / 1_000) % 5];
            row[2] = datacenters[(series / 5_000) % 10];
            row[3] = services[(series / 50_000) % 20];
            row[4] = percent(a >>> 43);
            row[5] = percent((a >>> 22) & MASK21);
            row[6] = percent(a & MASK21);
            row[7] = (b >>> 32) * NET_SCALE;
            row[8] = (b & 0xFFFF_FFFFL) * NET_SCALE;
            row[9] = START + i;
            sink.accept(row);
        }
    }
}
