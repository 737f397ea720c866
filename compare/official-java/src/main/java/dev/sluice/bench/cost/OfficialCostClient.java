package dev.sluice.bench.cost;

import dev.sluice.bench.workload.Workload;
import io.greptime.GreptimeDB;
import io.greptime.models.DataType;
import io.greptime.models.Err;
import io.greptime.models.Result;
import io.greptime.models.SemanticType;
import io.greptime.models.Table;
import io.greptime.models.TableSchema;
import io.greptime.models.WriteOk;
import io.greptime.options.GreptimeOptions;
import io.greptime.rpc.RpcOptions;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The official GreptimeDB Java ingester in one run of the cost benchmark's client process, so that it can be
 * measured exactly as {@code CostClient} measures Sluice: the same workload classes make the same rows (values
 * handed to {@code Table.addRow} as objects), the same number of writers each keep one request of one table in
 * flight, and the process CPU, JIT compiler CPU, allocation and peak RSS are read by the same probes ({@link Jvm})
 * from the moment the client is created to the end of its shutdown. It prints the same result line.
 *
 * <p>Arguments: {@code workload rows batch parallelism host:port [database]}.
 */
public final class OfficialCostClient {
    private OfficialCostClient() {
    }

    /**
     * Runs one measured client.
     *
     * @param args workload, rows, batch, parallelism, endpoint, optional database
     * @throws Exception when the run cannot start
     */
    public static void main(String[] args) throws Exception {
        String workloadName = args[0];
        long rows = Long.parseLong(args[1]);
        int batch = Integer.parseInt(args[2]);
        int parallelism = Integer.parseInt(args[3]);
        String endpoint = args[4];
        String database = args.length > 5 ? args[5] : "public";

        Workload wl = Workload.named(workloadName, 42);
        TableSchema schema = officialSchema(wl.schema());
        long batches = (rows + batch - 1) / batch;

        Map<Long, Long> alloc0 = Jvm.allocatedByThread();
        long cpu0 = Jvm.processCpuNanos();
        long jit0 = Jvm.compilationMillis();
        long jitCpu0 = Jvm.compilerCpuNanos();
        long start = System.nanoTime();

        RpcOptions rpc = RpcOptions.newDefault();
        rpc.setDefaultRpcTimeout(300_000);
        rpc.setMaxInboundMessageSize(64 << 20);
        GreptimeOptions opts = GreptimeOptions.newBuilder(endpoint, database).rpcOptions(rpc)
                // Its default limit (points in flight) rejects one 65,536-row logs request; lift it, as the
                // Sluice run's budget is one that its requests fit in.
                .maxInFlightWritePoints(Integer.MAX_VALUE).build();
        GreptimeDB db = GreptimeDB.create(opts);

        AtomicLong next = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong endedAlloc = new AtomicLong();
        Thread[] workers = new Thread[parallelism];
        for (int w = 0; w < parallelism; w++) {
            workers[w] = new Thread(() -> {
                long b;
                while ((b = next.getAndIncrement()) < batches) {
                    long first = b * batch;
                    int n = (int) Math.min(batch, rows - first);
                    Table t = Table.from(schema);
                    wl.fill(t::addRow, first, n);
                    Result<WriteOk, Err> r = db.write(t).join();
                    if (r.isOk()) {
                        acked.addAndGet(n);
                    } else {
                        failed.incrementAndGet();
                        System.err.println("official client: " + r.getErr());
                    }
                }
                endedAlloc.addAndGet(currentThreadAllocatedBytes());
            }, "official-writer-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long alloc = Jvm.allocatedSince(alloc0) + endedAlloc.get();
        db.shutdownGracefully();
        long cpu = Jvm.processCpuNanos() - cpu0;
        long jit = jit0 < 0 ? -1 : Jvm.compilationMillis() - jit0;
        long jitCpu = jitCpu0 < 0 ? -1 : Jvm.compilerCpuNanos() - jitCpu0;
        System.out.printf(Locale.ROOT, "sluice-cost-result rows=%d acked=%d failed=%d cpu_ns=%d seconds=%.6f"
                        + " alloc_bytes=%d rss_kib=%d jit_ms=%d jit_cpu_ns=%d%n", rows, acked.get(), failed.get(), cpu,
                seconds, alloc, Jvm.peakRssKiB(), jit, jitCpu);
        System.out.flush();
        System.exit(failed.get() == 0 && acked.get() == rows ? 0 : 1);
    }

    private static TableSchema officialSchema(dev.sluice.data.TableSchema ours) {
        TableSchema.Builder b = TableSchema.newBuilder(ours.tableName());
        Map<String, DataType> types = new HashMap<>();
        for (DataType t : DataType.values()) {
            types.put(t.name(), t);
        }
        for (dev.sluice.data.TableSchema.Column c : ours.columns()) {
            DataType type = types.get(c.dataType().name());
            if (type == null) {
                throw new IllegalArgumentException("no official type for " + c.dataType());
            }
            b.addColumn(c.name(), SemanticType.valueOf(c.semanticType().name()), type);
        }
        return b.build();
    }

    private static long currentThreadAllocatedBytes() {
        java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
        if (t instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()
                && sun.isThreadAllocatedMemoryEnabled()) {
            return sun.getCurrentThreadAllocatedBytes();
        }
        return 0;
    }
}
