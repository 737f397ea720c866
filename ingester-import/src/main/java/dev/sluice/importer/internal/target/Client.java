package dev.sluice.importer.internal.target;

import dev.sluice.GreptimeDB;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.metrics.MetricsSink;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.sink.internal.SinkSettings;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Everything the import asks of Sluice's client, in one place: connecting, creating a table, and writing
 * batches over the bulk or the regular path.
 */
public final class Client implements AutoCloseable {
    /** A writer of batches of one table: fill {@link #appender()}, then {@link #send()}. */
    public interface BatchSink extends AutoCloseable {
        /** @return the appender of the open batch */
        RowAppender appender();

        /** @return rows in the open batch */
        int rows();

        /** @return the open batch's rows when the sink keeps them on the heap (regular path, or kept rows), else null */
        default Table keptRows() {
            return null;
        }

        /**
         * Sends the open batch and opens the next. Blocks while the in-flight limit is reached; once a slot is
         * free, runs {@code beforeSend} (which records the batch as sent) and hands the batch to the client.
         *
         * @param beforeSend run after the slot is taken and before the batch leaves
         * @return completes with the rows the server acknowledged, or exceptionally
         */
        CompletableFuture<Long> send(Runnable beforeSend);

        /** Waits for every batch's answer; throws {@link ImportFailure} when the stream failed. */
        void finish();

        /**
         * Writes the next batches with a schema of more columns (regular path only: its writes add them to the
         * table). The open batch must be empty.
         *
         * @param schema the new schema
         * @throws UnsupportedOperationException on the bulk path, whose stream has one schema
         */
        default void reschema(TableSchema schema) {
            throw new UnsupportedOperationException("the bulk path writes one schema per stream");
        }

        @Override
        void close();
    }

    /** A writer of several tables per request over the regular path (line protocol: one table per measurement). */
    public interface TablesSink {
        /**
         * Sends tables in one request. Blocks while the in-flight limit is reached; once a slot is free, runs
         * {@code beforeSend} and hands the tables to the client.
         *
         * @param tables completed tables
         * @param beforeSend run after the slot is taken and before the request leaves
         * @return completes with the rows the server acknowledged, or exceptionally
         */
        CompletableFuture<Long> send(List<Table> tables, Runnable beforeSend);

        /** Waits for every request's answer. */
        void finish();
    }

    private final SinkClients clients;
    private final GreptimeDB db;
    private final SinkSettings settings;

    /**
     * Connects (lazily: the first call opens the channel) through the integrations' shared path. The import writes
     * its batches through its own writers: the shared clients are opened for direct writes only.
     *
     * @param settings the connection settings (from {@code ImportOptions.settings})
     */
    public Client(SinkSettings settings) {
        this.settings = settings;
        this.clients = SinkClients.openDirect(settings, MetricsSink.NONE);
        this.db = clients.db();
    }

    /**
     * Narrows requests the server refuses because of their data down to the refused rows, writing directly.
     *
     * @param ctx the write context of the import's requests
     * @return the narrowing
     */
    public RefusedRows refusedRows(Context ctx) {
        return new RefusedRows(clients, forRegularCalls(ctx));
    }

    /**
     * Readies the client's bulk writers (see {@code GreptimeDB.prepareBulk}); a failure is left to the first writer,
     * which reports it with its table.
     */
    public void prepareBulk() {
        try {
            db.prepareBulk();
        } catch (RuntimeException e) {
            // the first bulk writer meets the same problem and names it
        }
    }

    /**
     * The per-write context: table options as hints (used when a write creates the table), and the append-mode
     * hint, which stops the client from resending a batch whose answer was lost (it might be stored already).
     *
     * @param tableOptions table options
     * @param appendMode whether the table keeps duplicates
     * @return the context
     */
    public static Context context(Map<String, String> tableOptions, boolean appendMode) {
        Context ctx = Context.newBuilder().build();
        for (Map.Entry<String, String> e : tableOptions.entrySet()) {
            ctx = ctx.toBuilder().hint(e.getKey(), e.getValue()).build();
        }
        if (appendMode) {
            ctx = ctx.toBuilder().hint("append_mode", "true").build();
        }
        return ctx;
    }

    /**
     * Creates the table if it is missing.
     *
     * @param schema the schema
     * @param ctx table options
     * @throws ImportFailure when the server refuses
     */
    public void createTable(TableSchema schema, Context ctx) {
        Result<WriteOk, Err> r = join(db.createTable(schema, forRegularCalls(ctx)), "creating table '"
                + schema.tableName() + "'");
        if (!r.isOk()) {
            throw new ImportFailure("creating table '" + schema.tableName() + "' failed: " + r.getErr(), null);
        }
    }

    /**
     * Writes tables over the regular path (which creates tables and adds columns as needed).
     *
     * @param tables the tables
     * @param ctx the context
     * @return the acknowledged rows, or exceptionally with an {@link ImportFailure}
     */
    public CompletableFuture<Long> write(List<Table> tables, Context ctx) {
        return db.write(tables, WriteOp.Insert, forRegularCalls(ctx)).thenApply(r -> {
            if (!r.isOk()) {
                throw new CompletionException(new WriteRefused("write of " + tableNames(tables) + " failed: "
                        + SinkClients.describe(r.getErr()), r.getErr(), tables));
            }
            return r.getOk().affectedRows();
        });
    }

    /** The context with the client's compression ({@code --connection} may name one). */
    private Context withConnection(Context ctx) {
        return ctx.toBuilder().compression(clients.context().compression()).build();
    }

    /**
     * The context of a regular call (creating a table, a regular write, narrowing a refusal): the client's
     * compression unless it is a bulk-only one (lz4), which a regular call is sent without, as the client's own
     * bulk writer creates its table.
     */
    private Context forRegularCalls(Context ctx) {
        Context c = withConnection(ctx);
        return c.compression() == Compression.Lz4 ? c.toBuilder().compression(Compression.None).build() : c;
    }

    private static String tableNames(List<Table> tables) {
        return tables.stream().map(t -> "'" + t.tableName() + "'").distinct().reduce((a, b) -> a + ", " + b).orElse("");
    }

    private <T> T join(CompletableFuture<T> f, String what) {
        try {
            return f.get(clients.directWriteBound().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImportFailure("interrupted while " + what, e);
        } catch (ExecutionException e) {
            throw new ImportFailure(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new ImportFailure(what + " got no answer in time", e);
        }
    }

    /**
     * Opens a batch writer for one table.
     *
     * @param schema the table's schema
     * @param bulk bulk path (Arrow Flight) or regular path
     * @param batchRows rows per batch
     * @param inFlight unanswered batches allowed
     * @param ctx the context
     * @return the sink
     */
    public BatchSink open(TableSchema schema, boolean bulk, int batchRows, int inFlight, Context ctx) {
        return open(schema, bulk, batchRows, inFlight, ctx, false);
    }

    /**
     * Opens a batch writer for one table that can keep each batch's rows until it is answered, so that a batch the
     * server refuses can be narrowed down to its refused rows ({@link RefusedRows}). The regular path keeps them
     * anyway; the bulk path then fills a table on the heap and copies it into its Arrow batch, and after a refused
     * batch (which ends a bulk stream) opens a new stream for the next batches.
     *
     * @param schema the table's schema
     * @param bulk bulk path (Arrow Flight) or regular path
     * @param batchRows rows per batch
     * @param inFlight unanswered batches allowed
     * @param ctx the context
     * @param keepRows whether a failed batch's rows come with its failure ({@link WriteRefused#tables()})
     * @return the sink
     */
    public BatchSink open(TableSchema schema, boolean bulk, int batchRows, int inFlight, Context ctx, boolean keepRows) {
        return bulk ? new Bulk(schema, batchRows, inFlight, ctx, keepRows) : new Regular(schema, batchRows, inFlight, ctx);
    }

    private final class Bulk implements BatchSink {
        private final TableSchema schema;
        private final BulkWrite.Config config;
        private final Context ctx;
        private final int batchRows;
        private BulkStreamWriter writer;
        private TableBufferRoot root;
        private RowAppender appender;
        private final Slots slots;
        /** Null unless the batches' rows are kept: the heap table the next batch is filled in. */
        private Table kept;
        /** Set when a batch failed for good, which ends the writer's stream: the next batch opens a new one. */
        private volatile boolean broken;

        Bulk(TableSchema schema, int batchRows, int inFlight, Context ctx, boolean keepRows) {
            this.schema = schema;
            this.ctx = ctx;
            this.batchRows = batchRows;
            this.slots = new Slots(inFlight, schema.tableName());
            // One more slot than the import's own limit, so writeNext() never waits once the import let a batch go.
            // The import created the table (or found it) before opening any writer: no create call per writer.
            this.config = BulkWrite.Config.newBuilder().maxInFlightRequests(Math.min(31, inFlight + 1))
                    .requestTimeout(settings.requestTimeout()).allocatorMaxAllocation(4L << 30).createTable(false).build();
            openWriter();
            if (keepRows) {
                kept = Table.from(schema, batchRows);
                appender = kept.appender();
            } else {
                appender = root.appender();
            }
        }

        private void openWriter() {
            try {
                this.writer = db.bulkStreamWriter(schema, config, withConnection(ctx));
            } catch (RuntimeException e) {
                throw new ImportFailure("opening the bulk writer of '" + schema.tableName() + "' failed: " + e.getMessage(), e);
            }
            this.root = writer.tableBufferRoot(batchRows);
        }

        @Override
        public RowAppender appender() {
            return appender;
        }

        @Override
        public int rows() {
            return kept != null ? kept.rowCount() : root.rowCount();
        }

        @Override
        public Table keptRows() {
            return kept;
        }

        @Override
        public CompletableFuture<Long> send(Runnable beforeSend) {
            slots.acquire(1);
            try {
                if (kept == null) {
                    beforeSend.run();
                    root.complete();
                    return writer.writeNext().thenApply(Integer::longValue).whenComplete((n, e) -> slots.release(1));
                }
                if (broken) {
                    // Every batch of the failed stream has its answer (the failure): a new stream for the next ones.
                    writer.close();
                    broken = false;
                    openWriter();
                }
                Table batch = kept.complete();
                kept = Table.from(schema, batchRows);
                appender = kept.appender();
                beforeSend.run();
                root.addTable(batch).complete();
                return writer.writeNext().thenApply(Integer::longValue).whenComplete((n, e) -> slots.release(1))
                        .exceptionally(e -> {
                            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                            if (c instanceof dev.sluice.write.WriteException w) {
                                broken = true;
                                throw new CompletionException(new WriteRefused("bulk write of '" + schema.tableName()
                                        + "' failed: " + SinkClients.describe(w.err()), w.err(), List.of(batch)));
                            }
                            throw e instanceof CompletionException ce ? ce : new CompletionException(e);
                        });
            } catch (RuntimeException e) {
                slots.release(1);
                throw e;
            }
        }

        @Override
        public void finish() {
            try {
                writer.completed();
            } catch (RuntimeException e) {
                if (kept != null && e instanceof dev.sluice.write.WriteException) {
                    return; // each batch's own answer reports its failure
                }
                throw new ImportFailure("bulk write failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            writer.close();
        }
    }

    private final class Regular implements BatchSink {
        private TableSchema schema;
        private final int batchRows;
        private final Context ctx;
        private final Slots slots;
        private final int inFlight;
        private Table table;
        private RowAppender appender;

        Regular(TableSchema schema, int batchRows, int inFlight, Context ctx) {
            this.schema = schema;
            this.batchRows = batchRows;
            this.ctx = ctx;
            this.inFlight = inFlight;
            this.slots = new Slots(inFlight, schema.tableName());
            fresh();
        }

        private void fresh() {
            table = Table.from(schema, batchRows);
            appender = table.appender();
        }

        @Override
        public void reschema(TableSchema wider) {
            if (table.rowCount() != 0) {
                throw new IllegalStateException("the open batch holds rows");
            }
            schema = wider;
            fresh();
        }

        @Override
        public RowAppender appender() {
            return appender;
        }

        @Override
        public int rows() {
            return table.rowCount();
        }

        @Override
        public Table keptRows() {
            return table;
        }

        @Override
        public CompletableFuture<Long> send(Runnable beforeSend) {
            Table t = table.complete();
            fresh();
            slots.acquire(1);
            try {
                beforeSend.run();
                return write(List.of(t), ctx).whenComplete((n, e) -> slots.release(1));
            } catch (RuntimeException e) {
                slots.release(1);
                throw e;
            }
        }

        @Override
        public void finish() {
            slots.acquire(inFlight);
            slots.release(inFlight);
        }

        @Override
        public void close() {
        }
    }

    /**
     * Opens a writer of several tables per request (regular path).
     *
     * @param inFlight unanswered requests allowed
     * @param ctx the context
     * @return the sink
     */
    public TablesSink openTables(int inFlight, Context ctx) {
        Slots slots = new Slots(inFlight, "line protocol");
        return new TablesSink() {
            @Override
            public CompletableFuture<Long> send(List<Table> tables, Runnable beforeSend) {
                slots.acquire(1);
                try {
                    beforeSend.run();
                    return write(tables, ctx).whenComplete((n, e) -> slots.release(1));
                } catch (RuntimeException e) {
                    slots.release(1);
                    throw e;
                }
            }

            @Override
            public void finish() {
                slots.acquire(inFlight);
                slots.release(inFlight);
            }
        };
    }

    /** The import's own limit of unanswered batches per writer, waited for with the retry deadline. */
    private final class Slots {
        private final Semaphore semaphore;
        private final int size;
        private final String table;

        Slots(int size, String table) {
            this.semaphore = new Semaphore(size);
            this.size = size;
            this.table = table;
        }

        void acquire(int n) {
            long wait = clients.directWriteBound().toMillis();
            try {
                if (!semaphore.tryAcquire(n, wait, TimeUnit.MILLISECONDS)) {
                    throw new ImportFailure("no answer for " + size + " batches of '" + table + "' within " + wait
                            + " ms", null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ImportFailure("interrupted", e);
            }
        }

        void release(int n) {
            semaphore.release(n);
        }
    }

    @Override
    public void close() {
        clients.close(Duration.ofSeconds(10));
    }
}
