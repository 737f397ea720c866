package dev.sluice.bench.jmh;

import dev.sluice.BufferCache;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.bulk.internal.ArrowBulkCodec;
import dev.sluice.data.RowAppender;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkMemory;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.write.Compression;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Nanoseconds per row on the writing thread of a bulk writer's batches as the bulk path makes them: the workload's
 * rows added to the codec's batch (as {@code Object[]} through {@code addRow}, or through the typed row appender),
 * then the batch unloaded into its Flight message, which is released at once (no transport). The workload alone
 * ({@link #workloadOnly}) is the part of the {@code Object[]} rows' cost that is not the client's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--add-opens=java.base/java.nio=ALL-UNNAMED"})
public class BulkRowsBenchmark {
    /** Rows per batch. */
    static final int BATCH = 1_000;

    /** Which row shape to write. */
    @Param({"metrics"})
    public String workload;

    private Workload wl;
    private ScheduledExecutorService timer;
    private TableCodec codec;
    private TableBufferRoot root;
    private RowAppender appender;
    private Consumer<Object[]> addRow;
    private long next;

    /** Opens one writer's batches, as a bulk writer of the default configuration does. */
    @Setup(Level.Trial)
    public void setup() {
        wl = Workload.named(workload, 42);
        timer = Executors.newSingleThreadScheduledExecutor();
        BulkMemory memory = new ArrowBulkCodec().attach(BufferCache.newBuilder().build(), timer, DirectHandOff.NONE);
        codec = memory.open(wl.schema(), BulkWrite.Config.newBuilder().build(), Compression.None);
        root = codec.rows(BATCH, new BatchGuard() {
            @Override
            public void enter() {
            }

            @Override
            public void exit(int rows) {
            }
        });
        appender = root.appender();
        addRow = root::addRow;
    }

    /** Frees the batches. */
    @TearDown(Level.Trial)
    public void tearDown() {
        codec.close();
        timer.shutdownNow();
    }

    private long send() {
        dev.sluice.internal.bulk.spi.BulkMessage m = codec.unload(next);
        long id = next;
        m.release();
        return id;
    }

    /**
     * A batch of rows handed as {@code Object[]}, unloaded.
     *
     * @return the batch's number
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long objects() {
        wl.fill(addRow, next, BATCH);
        next += BATCH;
        return send();
    }

    /**
     * A batch of rows set value by value through the typed row appender, unloaded.
     *
     * @return the batch's number
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long typed() {
        wl.append(appender, next, BATCH);
        next += BATCH;
        return send();
    }

    /**
     * The workload's {@code Object[]} rows alone, each read by a consumer that keeps nothing.
     *
     * @param bh takes each row's values
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void workloadOnly(Blackhole bh) {
        wl.fill(row -> {
            for (Object v : row) {
                bh.consume(v);
            }
        }, next, BATCH);
        next += BATCH;
    }
}
