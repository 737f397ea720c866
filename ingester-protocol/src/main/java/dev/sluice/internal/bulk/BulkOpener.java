package dev.sluice.internal.bulk;

import dev.sluice.BufferCache;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.internal.ArrowSupport;
import dev.sluice.bulk.internal.BulkAccess;
import dev.sluice.bulk.internal.BulkEvents;
import dev.sluice.bulk.internal.BulkTransport;
import dev.sluice.internal.transport.NettyHandOff;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.internal.transport.Endpoints;
import dev.sluice.internal.write.RegularWriter;
import io.grpc.CallOptions;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;

/** Opens bulk writers; kept apart so clients that never bulk-write never load Arrow. */
public final class BulkOpener {
    private BulkOpener() {
    }

    /**
     * Creates the table when asked, then opens the DoPut stream on the next endpoint.
     *
     * @param schema the table
     * @param config writer settings
     * @param ctx compression, and table options for a created table
     * @param regular used for the create-table DDL
     * @param endpoints the shared channels
     * @param callbackExecutor where futures complete
     * @param timer per-batch deadlines
     * @param timeoutMs how long table creation may take
     * @param metrics where batch outcomes are reported
     * @param policy the client's retry policy, used unless the context has its own
     * @param limiter the client-wide byte budget every batch takes from until answered
     * @param memory the client's bulk memory, set here by its first bulk writer
     * @param cache how much released memory the client keeps
     * @return the open writer
     */
    public static BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Context ctx, RegularWriter regular,
                                        Endpoints endpoints, Executor callbackExecutor, ScheduledExecutorService timer,
                                        long timeoutMs, MetricsSink metrics, RetryPolicy policy,
                                        InFlightLimiter limiter, AtomicReference<BulkMemory> memory,
                                        BufferCache cache) {
        ArrowSupport.check();
        // Refused before the table is created: a writer that cannot write must leave nothing behind.
        BulkStreamWriter.checkBulkWritable(schema);
        if (config.createTable()) {
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
        return BulkAccess.open(schema, config, ctx.compression(),
                new BulkTransport(endpoints::pick, CallOptions.DEFAULT, callbackExecutor, timer, events(metrics),
                        ctx.retryPolicy() != null ? ctx.retryPolicy() : policy, ctx.appendMode(),
                        bytes -> limiter.acquire(bytes, false)::release, regular::stopped,
                        ((ArrowMemory) memory.updateAndGet(m -> m != null ? m : new ArrowMemory(cache))).root,
                        NettyHandOff.get()));
    }

    /** The client's Arrow root allocator, with its reuse cache. */
    private static final class ArrowMemory implements BulkMemory {
        final BufferAllocator root;

        ArrowMemory(BufferCache cache) {
            this.root = ArrowSupport.clientRoot(cache.bulkBytes(), cache.idle().toNanos());
        }

        @Override
        public long allocatedBytes() {
            return root.getAllocatedMemory();
        }

        @Override
        public void trim() {
            ArrowSupport.trimCache(root);
        }
    }

    private static BulkEvents events(MetricsSink metrics) {
        if (metrics == MetricsSink.NONE) {
            return BulkEvents.NONE;
        }
        return new BulkEvents() {
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
        };
    }
}
