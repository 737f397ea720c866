package dev.sluice.bench;

import dev.sluice.AuthInfo;
import dev.sluice.Compression;
import dev.sluice.Context;
import dev.sluice.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.Result;
import dev.sluice.Table;
import dev.sluice.WriteOk;
import dev.sluice.WriteOp;
import dev.sluice.bench.workload.Workload;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The benchmark command line: writes a workload through each chosen path and prints a result table. */
@Command(name = "sluice-bench", mixinStandardHelpOptions = true,
        description = "Writes a log or metrics workload to GreptimeDB (or the embedded testkit) and reports throughput.")
public final class BenchMain implements Callable<Integer> {
    @Option(names = "--workload", defaultValue = "metrics", description = "logs | metrics (default: ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--mode", split = ",", defaultValue = "regular",
            description = "comma-separated paths to run; available now: regular (default: ${DEFAULT-VALUE})")
    List<String> modes;

    @Option(names = "--rows", defaultValue = "200000", description = "rows per mode (default: ${DEFAULT-VALUE})")
    long rows;

    @Option(names = "--batch", defaultValue = "1000", description = "rows per request (default: ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--parallelism", defaultValue = "4", description = "concurrent writers (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(names = "--compression", defaultValue = "none", description = "none | gzip | zstd (default: ${DEFAULT-VALUE})")
    String compression;

    @Option(names = "--seed", defaultValue = "42", description = "generator seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--endpoint", description = "host:port of a GreptimeDB gRPC endpoint; default: an embedded testkit")
    String endpoint;

    @Option(names = "--database", defaultValue = "public", description = "database (default: ${DEFAULT-VALUE})")
    String database;

    @Option(names = "--user", description = "basic-auth user")
    String user;

    @Option(names = "--password", description = "basic-auth password")
    String password;

    /** One mode's figures. */
    record ModeResult(String mode, long rows, double seconds, long failedBatches, long p50Micros, long p99Micros,
                      double generatorSeconds, String status) {
    }

    @Override
    public Integer call() throws Exception {
        Workload wl = Workload.named(workload, seed);
        Compression comp = Compression.valueOf(compression.substring(0, 1).toUpperCase(Locale.ROOT)
                + compression.substring(1).toLowerCase(Locale.ROOT));
        GreptimeTestServer embedded = null;
        String target = endpoint;
        if (target == null) {
            embedded = GreptimeTestServer.builder().retainRows(false).requestLogCapacity(16).start();
            target = embedded.endpoint();
            System.out.println("target: embedded testkit at " + target + " — measures the client, not GreptimeDB");
        } else {
            System.out.println("target: GreptimeDB at " + target + ", database " + database);
        }
        GreptimeOptions.Builder ob = GreptimeOptions.newBuilder(new String[] {target}, database)
                .defaultTimeout(Duration.ofSeconds(120));
        if (user != null) {
            ob.authInfo(new AuthInfo(user, password == null ? "" : password));
        }
        List<ModeResult> results = new ArrayList<>();
        GreptimeDB db = GreptimeDB.create(ob.build());
        try {
            for (String mode : modes) {
                if (embedded != null) {
                    embedded.clear();
                }
                if (!mode.equals("regular")) {
                    results.add(new ModeResult(mode, 0, 0, 0, 0, 0, 0, "not available in this build"));
                    continue;
                }
                ModeResult r = runRegular(db, wl, Context.newDefault().withCompression(comp));
                if (embedded != null && r.status().equals("ok")) {
                    long stored = embedded.rowCount(wl.schema().tableName());
                    if (stored != r.rows()) {
                        r = new ModeResult(r.mode(), r.rows(), r.seconds(), r.failedBatches(), r.p50Micros(),
                                r.p99Micros(), r.generatorSeconds(), "FAILED: acknowledged " + r.rows() + " but stored " + stored);
                    }
                }
                results.add(r);
            }
        } finally {
            db.shutdownGracefully(Duration.ofSeconds(10));
            if (embedded != null) {
                embedded.close();
            }
        }
        print(results);
        return results.stream().allMatch(r -> r.status().equals("ok") || r.status().startsWith("not available")) ? 0 : 1;
    }

    private ModeResult runRegular(GreptimeDB db, Workload wl, Context ctx) throws InterruptedException {
        long batches = (rows + batch - 1) / batch;
        AtomicLong nextBatch = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong generatorNanos = new AtomicLong();
        long[] latencies = new long[(int) batches];
        List<String> errors = new ArrayList<>();
        long start = System.nanoTime();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < parallelism; w++) {
            Thread t = new Thread(() -> {
                long b;
                while ((b = nextBatch.getAndIncrement()) < batches) {
                    long first = b * batch;
                    int count = (int) Math.min(batch, rows - first);
                    long g0 = System.nanoTime();
                    Table table = wl.batch(first, count);
                    long sent = System.nanoTime();
                    generatorNanos.addAndGet(sent - g0);
                    Result<WriteOk, Err> r = db.write(List.of(table), WriteOp.Insert, ctx).join();
                    latencies[(int) b] = (System.nanoTime() - sent) / 1_000;
                    if (r.isOk()) {
                        acked.addAndGet(count);
                    } else {
                        failed.incrementAndGet();
                        synchronized (errors) {
                            if (errors.size() < 3) {
                                errors.add(r.getErr().toString());
                            }
                        }
                    }
                }
            }, "bench-regular-" + w);
            workers.add(t);
            t.start();
        }
        Progress progress = new Progress("regular", rows, acked, start);
        for (Thread w : workers) {
            while (w.isAlive()) {
                w.join(500);
                progress.print();
            }
        }
        progress.finish();
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        String status = failed.get() == 0 ? "ok" : "FAILED: " + failed.get() + " batches, e.g. " + errors;
        return new ModeResult("regular", acked.get(), seconds, failed.get(), percentile(sorted, 0.5),
                percentile(sorted, 0.99), generatorNanos.get() / 1e9, status);
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** A single updating progress line on stderr. */
    static final class Progress {
        private final String mode;
        private final long total;
        private final AtomicLong done;
        private final long start;

        Progress(String mode, long total, AtomicLong done, long start) {
            this.mode = mode;
            this.total = total;
            this.done = done;
            this.start = start;
        }

        void print() {
            long d = done.get();
            double s = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
            double rate = d / s;
            long eta = rate > 0 ? (long) ((total - d) / rate) : -1;
            System.err.printf("\r%-8s %,12d rows %5.1f%% %,12.0f rows/s ETA %ds   ", mode, d, 100.0 * d / total, rate, eta);
        }

        void finish() {
            print();
            System.err.println();
        }
    }

    private void print(List<ModeResult> results) {
        System.out.printf("%nworkload=%s rows=%d batch=%d parallelism=%d compression=%s%n", workload, rows, batch,
                parallelism, compression);
        System.out.printf("%-8s %12s %10s %12s %10s %10s %10s  %s%n", "mode", "rows", "seconds", "rows/s", "p50 ms",
                "p99 ms", "gen s", "status");
        for (ModeResult r : results) {
            System.out.printf("%-8s %,12d %10.2f %,12.0f %10.2f %10.2f %10.2f  %s%n", r.mode(), r.rows(), r.seconds(),
                    r.seconds() > 0 ? r.rows() / r.seconds() : 0.0, r.p50Micros() / 1000.0, r.p99Micros() / 1000.0,
                    r.generatorSeconds(), r.status());
        }
    }

    /**
     * Runs the benchmark.
     *
     * @param args command-line options ({@code --help} lists them)
     */
    public static void main(String[] args) {
        int code = new CommandLine(new BenchMain()).execute(args);
        System.exit(code);
    }
}
