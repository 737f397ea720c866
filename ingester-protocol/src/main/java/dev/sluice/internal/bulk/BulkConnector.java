package dev.sluice.internal.bulk;

import dev.sluice.BufferCache;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.error.GrpcErrors;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.send.DirectHandOff;
import dev.sluice.internal.send.BulkHost;
import dev.sluice.internal.send.BulkPlugin;
import dev.sluice.internal.send.BulkWriters;
import dev.sluice.internal.send.Route;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.transport.NettyHandOff;
import dev.sluice.internal.write.RegularWriter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A client's side of bulk writes: finds the {@link BulkPlugin} of {@code ingester-bulk}, creates the table when
 * asked, and is the {@link BulkHost} its writers borrow the client's transport, budget and lifecycle from.
 */
public final class BulkConnector implements BulkHost {
    /** The artifact that provides bulk writes, named in the refusal when it is missing. */
    public static final String ARTIFACT = "dev.sluice:ingester-bulk";
    private static volatile BulkPlugin found;

    private final RegularWriter regular;
    private final Endpoints endpoints;
    private final Executor callbackExecutor;
    private final ScheduledExecutorService timer;
    private final InFlightLimiter limiter;
    private final MetricsSink metrics;
    private final BufferCache cache;
    private final RetryPolicy policy;
    private final long timeoutMs;
    private volatile BulkWriters writers;

    /**
     * Creates the client's bulk side; nothing is looked up or loaded before the first bulk writer.
     *
     * @param regular used for the create-table DDL and to tell whether the client is shutting down
     * @param endpoints the shared channels
     * @param callbackExecutor where futures complete
     * @param timer per-batch deadlines and reopenings
     * @param limiter the client-wide byte budget every batch takes from until answered
     * @param metrics where batch outcomes are reported
     * @param cache how much released memory the client keeps
     * @param policy the client's retry policy, used unless a context has its own
     * @param timeoutMs how long table creation may take
     */
    public BulkConnector(RegularWriter regular, Endpoints endpoints, Executor callbackExecutor,
                         ScheduledExecutorService timer, InFlightLimiter limiter, MetricsSink metrics,
                         BufferCache cache, RetryPolicy policy, long timeoutMs) {
        this.regular = regular;
        this.endpoints = endpoints;
        this.callbackExecutor = callbackExecutor;
        this.timer = timer;
        this.limiter = limiter;
        this.metrics = metrics;
        this.cache = cache;
        this.policy = policy;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Returns the bulk implementation, looking it up once.
     *
     * @return the plugin
     * @throws IllegalStateException naming {@link #ARTIFACT} when it is not on the class or module path
     */
    public static BulkPlugin plugin() {
        BulkPlugin p = found;
        if (p != null) {
            return p;
        }
        try {
            Iterator<BulkPlugin> it = ServiceLoader.load(BulkPlugin.class, BulkPlugin.class.getClassLoader()).iterator();
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
     * Creates the table when the config asks, then opens the writer's DoPut stream on the next endpoint.
     *
     * @param schema the table
     * @param config writer settings
     * @param ctx compression, retry policy, and table options for a created table
     * @return the open writer
     */
    public BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Context ctx) {
        BulkPlugin plugin = plugin();
        plugin.check();
        // Refused before the table is created: a writer that cannot write must leave nothing behind.
        // The one rule of which columns a path carries (JSON and Vector are refused here, naming the column).
        dev.sluice.BatchingWriter.Path.Bulk.check(schema);
        if (config.createTable()) {
            createTable(schema, ctx);
        }
        return writers(plugin).open(schema, config, ctx.compression(),
                ctx.retryPolicy() != null ? ctx.retryPolicy() : policy, ctx.appendMode());
    }

    /**
     * Attaches the bulk writers and loads their classes now, rather than with the first writer.
     *
     * @throws IllegalStateException as {@link #open} does when bulk writes cannot run in this JVM
     */
    public void prepare() {
        BulkPlugin plugin = plugin();
        plugin.check();
        writers(plugin).prepare();
    }

    private BulkWriters writers(BulkPlugin plugin) {
        BulkWriters w = writers;
        if (w == null) {
            synchronized (this) {
                w = writers;
                if (w == null) {
                    w = plugin.attach(this);
                    writers = w;
                }
            }
        }
        return w;
    }

    private void createTable(TableSchema schema, Context ctx) {
        Result<WriteOk, Err> created;
        try {
            // Compression on this call is gRPC message compression; the bulk codecs do not apply to DDL.
            created = regular.createTable(schema, ctx.toBuilder().compression(Compression.None).build())
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BulkWriteException("interrupted while creating table '" + schema.tableName() + "'", null, e);
        } catch (TimeoutException e) {
            throw new BulkWriteException("creating table '" + schema.tableName() + "' did not finish in "
                    + timeoutMs + " ms", null, e);
        } catch (ExecutionException e) {
            throw new BulkWriteException("creating table '" + schema.tableName() + "' failed", null, e.getCause());
        }
        if (!created.isOk()) {
            throw new BulkWriteException("could not create table '" + schema.tableName() + "' before bulk writing: "
                    + created.getErr().message(), created.getErr(), created.getErr().cause());
        }
    }

    /**
     * Returns the off-heap bytes the client's bulk writers hold now.
     *
     * @return allocated bytes, 0 before the first bulk writer
     */
    public long allocatedBytes() {
        BulkWriters w = writers;
        return w == null ? 0 : w.allocatedBytes();
    }

    /**
     * Fails the batches the client's bulk writers still wait on (the client is shutting down).
     *
     * @param why the reason
     */
    public void failUnanswered(String why) {
        BulkWriters w = writers;
        if (w != null) {
            w.failUnanswered(why);
        }
    }

    /** Frees the memory the bulk writers keep for reuse (the client is shutting down). */
    public void trim() {
        BulkWriters w = writers;
        if (w != null) {
            w.trim();
        }
    }

    @Override
    public Err error(Throwable failure, List<String> tables, String authority) {
        return GrpcErrors.fromThrowable(failure, tables, authority);
    }

    @Override
    public Route route() {
        return endpoints;
    }

    @Override
    public Executor callbackExecutor() {
        return callbackExecutor;
    }

    @Override
    public ScheduledExecutorService timer() {
        return timer;
    }

    @Override
    public Runnable acquire(long bytes) {
        return limiter.acquire(bytes, false)::release;
    }

    @Override
    public boolean stopped() {
        return regular.stopped();
    }

    @Override
    public DirectHandOff handOff() {
        return NettyHandOff.get();
    }

    @Override
    public BufferCache bufferCache() {
        return cache;
    }

    @Override
    public void acked(String table, long rows, long bytes, long nanos) {
        metrics.rows("bulk", table, rows);
        metrics.bytes("bulk", bytes);
        metrics.latency("bulk", nanos);
    }

    @Override
    public void failed(Err err) {
        metrics.failure("bulk", err == null ? -1 : err.code(), err == null ? "CLIENT" : err.grpcCode().name());
    }

    @Override
    public void replayed() {
        metrics.retry("bulk");
    }
}
