package dev.sluice.internal.bulk;

import dev.sluice.BufferCache;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BulkCodec;
import dev.sluice.internal.bulk.spi.BulkMemory;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.transport.NettyHandOff;
import dev.sluice.internal.write.RegularWriter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * A client's side of bulk writes: finds the {@link BulkCodec} of {@code ingester-bulk}, creates the table when
 * asked, and opens the client's bulk writers on its transport, budget and lifecycle, with the codec's batches.
 */
public final class BulkConnector {
    /** The artifact that provides bulk writes, named in the refusal when it is missing. */
    public static final String ARTIFACT = "dev.sluice:ingester-bulk";
    private static volatile BulkCodec found;

    private final RegularWriter regular;
    private final BulkClient client;
    private final BufferCache cache;
    private final RetryPolicy policy;
    private final long timeoutMs;
    /** The client's bulk memory, attached with the first writer once the codec's check passed. */
    private volatile BulkMemory memory;
    /** Writers not closed yet: a shutdown fails what they still wait for. */
    private final Set<BulkEngineWriter> open = ConcurrentHashMap.newKeySet();

    /**
     * Creates the client's bulk side; nothing is looked up or loaded before the first bulk writer.
     *
     * @param regular used for the create-table DDL and to tell whether the client is shutting down
     * @param endpoints the shared channels
     * @param callbackExecutor where futures complete
     * @param timer per-batch deadlines and reopenings
     * @param clock the time the timer's deadlines are on ({@code System::nanoTime}, or a test's manual clock)
     * @param limiter the client-wide byte budget every batch takes from until answered
     * @param metrics where batch outcomes are reported
     * @param cache how much released memory the client keeps
     * @param policy the client's retry policy, used unless a context has its own
     * @param timeoutMs how long table creation may take
     */
    public BulkConnector(RegularWriter regular, Endpoints endpoints, Executor callbackExecutor,
                         ScheduledExecutorService timer, LongSupplier clock, InFlightLimiter limiter,
                         MetricsSink metrics, BufferCache cache, RetryPolicy policy, long timeoutMs) {
        this.regular = regular;
        this.client = new BulkClient(endpoints, callbackExecutor, timer, clock, limiter, metrics, regular::stopped);
        this.cache = cache;
        this.policy = policy;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Returns the bulk codec, looking it up once.
     *
     * @return the codec
     * @throws IllegalStateException naming {@link #ARTIFACT} when it is not on the class or module path
     */
    public static BulkCodec plugin() {
        BulkCodec p = found;
        if (p != null) {
            return p;
        }
        try {
            Iterator<BulkCodec> it = ServiceLoader.load(BulkCodec.class, BulkCodec.class.getClassLoader()).iterator();
            if (it.hasNext()) {
                p = it.next();
                found = p;
                return p;
            }
        } catch (ServiceConfigurationError | LinkageError e) {
            throw missing(e);
        }
        throw missing(null);
    }

    private static IllegalStateException missing(Throwable cause) {
        return new IllegalStateException("bulk writes need the " + ARTIFACT + " artifact on the classpath (it brings"
                + " Arrow); add it next to ingester-protocol" + (cause != null ? ": " + cause : ""), cause);
    }

    /**
     * Opens a writer without waiting for the server: when the config asks, the table is created meanwhile, and the
     * writer's DoPut stream opens on the next endpoint once the table exists (at once when none is created). A
     * creation that fails or gets no answer in time fails the writer's first batch, every later one and its
     * {@code completed()}, with one error naming the table.
     *
     * @param schema the table
     * @param config writer settings
     * @param ctx compression, retry policy, and table options for a created table
     * @return the open writer
     */
    public BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Context ctx) {
        BulkMemory m = memory();
        // Refused before the table is created: a writer that cannot write must leave nothing behind.
        // The one rule of which columns a path carries (JSON and Vector are refused here, naming the column).
        dev.sluice.BatchingWriter.Path.Bulk.check(schema);
        TableCreation creation = config.createTable() ? TableCreation.start(regular, schema, ctx, timeoutMs)
                : TableCreation.none();
        Compression compression = ctx.compression();
        BulkEngineWriter w = new BulkEngineWriter(schema, config, compression,
                ctx.retryPolicy() != null ? ctx.retryPolicy() : policy, ctx.appendMode(), client, m.method(),
                m.open(schema, config, compression), creation, open::remove);
        open.add(w);
        return w;
    }

    /**
     * Sends a bulk writer's filled batch by a deadline set earlier, when that comes before the writer's retry
     * policy's from now: a batching writer's batch keeps the deadline counted from its own write.
     *
     * @param writer a writer {@link #open} made
     * @param notAfter the latest delivery deadline, on the client's write clock
     * @return as {@link BulkStreamWriter#writeNext()}
     */
    public static CompletableFuture<Integer> writeNext(BulkStreamWriter writer, long notAfter) {
        return writer instanceof BulkEngineWriter w ? w.writeNext(notAfter) : writer.writeNext();
    }

    /**
     * Attaches the bulk memory and loads the codec's classes now, rather than with the first writer.
     *
     * @throws IllegalStateException as {@link #open} does when bulk writes cannot run in this JVM
     */
    public void prepare() {
        memory().prepare();
    }

    /** The client's bulk memory; the codec's check runs once, before it is attached (again only if it failed). */
    private BulkMemory memory() {
        BulkMemory m = memory;
        if (m == null) {
            BulkCodec codec = plugin();
            synchronized (this) {
                m = memory;
                if (m == null) {
                    codec.check();
                    m = codec.attach(cache, client.timer(), NettyHandOff.get());
                    memory = m;
                }
            }
        }
        return m;
    }

    /**
     * Returns the off-heap bytes the client's bulk writers hold now.
     *
     * @return allocated bytes, 0 before the first bulk writer
     */
    public long allocatedBytes() {
        BulkMemory m = memory;
        return m == null ? 0 : m.allocatedBytes();
    }

    /**
     * Fails the batches the client's bulk writers still wait on (the client is shutting down).
     *
     * @param why the reason
     */
    public void failUnanswered(String why) {
        for (BulkEngineWriter w : open) {
            w.failUnanswered(why);
        }
    }

    /** Frees the memory the bulk writers keep for reuse (the client is shutting down). */
    public void trim() {
        BulkMemory m = memory;
        if (m != null) {
            m.trim();
        }
    }
}
