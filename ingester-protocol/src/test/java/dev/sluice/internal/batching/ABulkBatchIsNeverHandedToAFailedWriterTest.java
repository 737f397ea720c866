package dev.sluice.internal.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.BatchingWriter;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer can be failed by an earlier batch while the batching writer hands it the next one (the failure is
 * known to the writer, which refuses every later batch at once, before the earlier batch's future says so). The
 * batching writer then gives that batch to a new writer of the table: the batch is stored, not failed with the
 * earlier batch's error, and the failed writer is closed without being completed (it is not asked to send anything
 * more). The bulk writers here stand in for the bulk module's: what they "store" is what they were sent.
 */
class ABulkBatchIsNeverHandedToAFailedWriterTest {
    static final TableSchema SCHEMA = TableSchema.newBuilder("handed").addTag("host", DataType.String)
            .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void aBatchRefusedByAWriterFailedMeanwhileIsStoredThroughANewWriter() throws Exception {
        AtomicLong stored = new AtomicLong();
        List<FakeWriter> opened = new CopyOnWriteArrayList<>();
        DefaultBatchingWriter.Paths paths = new DefaultBatchingWriter.Paths() {
            @Override
            public CompletableFuture<dev.sluice.write.Result<dev.sluice.write.WriteOk, dev.sluice.write.Err>> write(
                    List<Table> tables, dev.sluice.write.WriteOp op, Context ctx, long deadline) {
                throw new UnsupportedOperationException("the bulk path only");
            }

            @Override
            public BulkStreamWriter bulk(TableSchema schema, BulkWrite.Config config, Context ctx) {
                FakeWriter w = new FakeWriter(schema, stored);
                opened.add(w);
                return w;
            }

            @Override
            public CompletableFuture<Integer> writeNext(BulkStreamWriter writer, long deadline) {
                return writer.writeNext();
            }

            @Override
            public long now() {
                return System.nanoTime();
            }

            @Override
            public List<String> endpoints() {
                return List.of("fake:4001");
            }
        };
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            DefaultBatchingWriter w = new DefaultBatchingWriter(paths, BatchingWriter.Config.newBuilder()
                    .path(BatchingWriter.Path.Bulk).maxBatchRows(10).build(), Context.newBuilder().build(), timer,
                    Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30), x -> { });
            CompletableFuture<Void> first = null;
            for (int i = 0; i < 10; i++) {
                first = w.write(SCHEMA, "h", i * 0.5, (long) i);
            }
            first.get(30, TimeUnit.SECONDS);
            // An earlier batch failed the writer; its own future has not said so yet.
            opened.get(0).failedMeanwhile = true;
            CompletableFuture<Void> next = null;
            for (int i = 10; i < 20; i++) {
                next = w.write(SCHEMA, "h", i * 0.5, (long) i);
            }
            next.get(30, TimeUnit.SECONDS);
            w.close();
            assertEquals(20, stored.get(), "rows the bulk writers sent");
            assertEquals(2, opened.size(), "writers opened for the table");
            assertFalse(opened.get(0).completedCalled.get() > 0, "the failed writer was asked to complete");
            assertEquals(1, opened.get(1).completedCalled.get(), "the new writer completed at close");
        } finally {
            timer.shutdownNow();
        }
    }

    /** Sends whatever its batch holds at once, or, once failed, refuses every batch at once and drops its rows. */
    private static final class FakeWriter implements BulkStreamWriter {
        final FakeRoot root;
        final AtomicLong stored;
        volatile boolean failedMeanwhile;
        final AtomicInteger completedCalled = new AtomicInteger();

        FakeWriter(TableSchema schema, AtomicLong stored) {
            this.root = new FakeRoot(schema);
            this.stored = stored;
        }

        @Override
        public TableBufferRoot tableBufferRoot(int columnBufferSize) {
            return root;
        }

        @Override
        public CompletableFuture<Integer> writeNext() {
            int rows = root.rows;
            root.rows = 0;
            if (failedMeanwhile) {
                return CompletableFuture.failedFuture(new IllegalStateException("an earlier batch failed this writer"));
            }
            stored.addAndGet(rows);
            return CompletableFuture.completedFuture(rows);
        }

        @Override
        public long completed() {
            completedCalled.incrementAndGet();
            return 0;
        }

        @Override
        public long ackedBatches() {
            return 0;
        }

        @Override
        public int replays() {
            return 0;
        }

        @Override
        public long failedBatches() {
            return 0; // the earlier batch's failure is not counted yet
        }

        @Override
        public int inFlight() {
            return 0;
        }

        @Override
        public long allocatedBytes() {
            return 0;
        }

        @Override
        public void close() {
        }
    }

    /** Counts the rows added. */
    private static final class FakeRoot implements TableBufferRoot {
        final TableSchema schema;
        int rows;

        FakeRoot(TableSchema schema) {
            this.schema = schema;
        }

        @Override
        public TableBufferRoot addRow(Object... values) {
            rows++;
            return this;
        }

        @Override
        public RowAppender appender() {
            throw new UnsupportedOperationException();
        }

        @Override
        public TableBufferRoot addTable(Table table) {
            rows += table.rowCount();
            return this;
        }

        @Override
        public TableBufferRoot complete() {
            return this;
        }

        @Override
        public int rowCount() {
            return rows;
        }

        @Override
        public TableSchema schema() {
            return schema;
        }
    }
}
