package dev.sluice.bulk;

import dev.sluice.Compression;
import dev.sluice.Err;
import dev.sluice.TableSchema;
import dev.sluice.bulk.internal.ArrowSupport;
import dev.sluice.bulk.internal.ArrowTypes;
import dev.sluice.bulk.internal.BulkTransport;
import dev.sluice.bulk.internal.FlightMessages;
import dev.sluice.internal.error.GrpcErrors;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * Streams record batches for one table to GreptimeDB over Arrow Flight {@code DoPut}: the fastest way to
 * write large volumes. Obtain one from {@code GreptimeDB.bulkStreamWriter(schema, config, context)}.
 *
 * <pre>{@code
 * try (BulkStreamWriter bulk = db.bulkStreamWriter(schema, config, ctx)) {
 *     TableBufferRoot batch = bulk.tableBufferRoot(65_536);
 *     for (...) { batch.addRow(...); }
 *     CompletableFuture<Integer> acked = bulk.writeNext();   // batch is empty again, refill it
 *     ...
 *     long rows = bulk.completed();                        // waits for every answer
 * }
 * }</pre>
 *
 * <p>Contract: each {@link #writeNext()} future completes exactly once, with the rows the server wrote for
 * that batch or with a {@link BulkWriteException}. At most {@code maxRequestsInFlight} batches are unanswered;
 * a batch with no answer after {@code timeoutMsPerMessage} fails and cancels the stream, after which every
 * unanswered and every later batch fails with that cause. The first server error also ends the stream: batches
 * answered before it are committed, later ones are not. A stream that ends while batches are unanswered fails
 * exactly those. {@link #close()} releases all off-heap memory on every path. Not thread-safe: one producer
 * thread per writer.
 */
public final class BulkStreamWriter implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BulkStreamWriter.class);
    private final TableSchema schema;
    private final BulkWrite.Config config;
    private final BulkTransport transport;
    private final BufferAllocator allocator;
    private final CompressionCodec codec;
    private final Compression compression;
    private volatile ClientCall<Object, Flight.PutResult> call;
    private int generation;
    private int replays;
    private final Semaphore slots;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /** Messages waiting for flow control: schema bytes, replayable heap copies, or batches sent from Arrow memory. */
    private final ArrayDeque<Object> outbox = new ArrayDeque<>();
    private final Object sendLock = new Object();
    private final CompletableFuture<Status> closedFuture = new CompletableFuture<>();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackedRows = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private TableBufferRoot root;
    private long nextId;
    private boolean halfClosePending;
    private boolean halfClosed;
    private boolean cancelled;
    private volatile BulkWriteException failure;
    private volatile boolean completing;
    private volatile boolean closed;

    private record Pending(long id, int rows, CompletableFuture<Integer> future, byte[] message, int size, long sentAt) {
    }

    /**
     * Opens the stream. Prefer {@code GreptimeDB.bulkStreamWriter}, which also creates the table.
     *
     * @param schema the table's schema
     * @param config writer settings
     * @param compression None, Zstd or Lz4 (Arrow IPC body compression); Gzip is applied as gRPC compression
     * @param transport what the writer borrows from its client
     */
    public BulkStreamWriter(TableSchema schema, BulkWrite.Config config, Compression compression, BulkTransport transport) {
        ArrowSupport.check();
        for (TableSchema.Column c : schema.columns()) {
            if (c.dataType() == dev.sluice.DataType.Json) {
                throw new IllegalArgumentException("table '" + schema.tableName() + "', column '" + c.name()
                        + "': JSON columns cannot be bulk written (the open-source server stores the bytes unconverted);"
                        + " write tables with JSON columns through GreptimeDB.write()");
            }
        }
        this.schema = schema;
        this.config = config;
        this.transport = transport;
        this.allocator = ArrowSupport.root().newChildAllocator("bulk-" + schema.tableName(),
                config.allocatorInitReservation(), config.allocatorMaxAllocation());
        this.codec = compression == Compression.Zstd
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD)
                : compression == Compression.Lz4
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME)
                : NoCompressionCodec.INSTANCE;
        this.slots = new Semaphore(config.maxRequestsInFlight(), true);
        this.compression = compression;
        synchronized (sendLock) {
            openCall();
        }
        drain();
    }

    /** Opens a DoPut call on the next endpoint and queues the schema message; caller holds sendLock. */
    private void openCall() {
        int gen = ++generation;
        ClientCall<Object, Flight.PutResult> c = transport.channels().get().newCall(FlightMessages.DO_PUT,
                compression == Compression.Gzip ? transport.callOptions().withCompression("gzip") : transport.callOptions());
        call = c;
        halfClosed = false;
        cancelled = false;
        c.start(new Listener(gen), new Metadata());
        c.request(Integer.MAX_VALUE);
        outbox.add(FlightMessages.schemaMessage(schema.tableName(), ArrowTypes.schema(schema)));
    }

    /**
     * Returns the writer's batch, creating it on first call. The same batch is returned every time.
     *
     * @param columnBufferSize rows to allocate room for up front (the batch still grows past it)
     * @return the batch
     * @throws BulkWriteException when even the initial vectors exceed {@code allocatorMaxAllocation}
     */
    public TableBufferRoot tableBufferRoot(int columnBufferSize) {
        checkOpen();
        if (root == null) {
            root = new TableBufferRoot(schema, allocator, Math.max(1, columnBufferSize), config.allocatorMaxAllocation());
        }
        return root;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        if (completing) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is completed");
        }
    }

    /**
     * Sends the batch and empties it for the next rows. Serialization and compression run on the calling thread.
     *
     * @return completes with the rows the server wrote for this batch, or with a {@link BulkWriteException}
     */
    public CompletableFuture<Integer> writeNext() {
        checkOpen();
        if (root == null || root.rowCount() == 0) {
            if (root != null) {
                root.reset();
            }
            return CompletableFuture.completedFuture(0);
        }
        int rows = root.rowCount();
        BulkWriteException f = failure;
        if (f != null) {
            root.reset();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(f);
        }
        if (!acquireSlot()) {
            root.reset();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(new BulkWriteException("no answer slot freed: "
                    + config.maxRequestsInFlight() + " batches of '" + schema.tableName() + "' unanswered"
                    + (config.whenFull() == BulkWrite.WhenFull.Block ? " for " + config.timeoutMsPerMessage() + " ms" : ""),
                    null, null));
        }
        Object message;
        int size;
        long id = ++nextId;
        try {
            ArrowRecordBatch batch = new VectorUnloader(root.arrowRoot(), true, codec, true).getRecordBatch();
            if (config.replayOnFailure() || !root.doubleBuffered()) {
                // A heap copy, the vectors reused at once: kept until answered so that a broken stream can resend
                // it, or because the allocator cap leaves no room for a second set of vectors.
                try (batch) {
                    byte[] copy = FlightMessages.batchMessage(batch, id);
                    message = copy;
                    size = copy.length;
                }
                root.reset();
            } else {
                // Sent straight from Arrow memory; the vectors are refilled only after gRPC has taken the bytes.
                FlightMessages.BatchMessage m = FlightMessages.batchMessage(batch, id, root.markSending());
                message = m;
                size = m.size();
                boolean swapped;
                try {
                    swapped = root.swap(config.timeoutMsPerMessage());
                } catch (RuntimeException e) {
                    m.release();
                    throw e;
                }
                if (!swapped) {
                    m.release();
                    throw new BulkWriteException("the previous batch of '" + schema.tableName() + "' was not sent within "
                            + config.timeoutMsPerMessage() + " ms", null, null);
                }
            }
        } catch (RuntimeException e) {
            root.reset();
            slots.release();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(e instanceof BulkWriteException ? e
                    : new BulkWriteException("could not serialize batch " + id, null, e));
        }
        CompletableFuture<Integer> future = new CompletableFuture<>();
        pending.put(id, new Pending(id, rows, future, config.replayOnFailure() ? (byte[]) message : null, size,
                System.nanoTime()));
        try {
            transport.timer().schedule(() -> timeout(id), config.timeoutMsPerMessage(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            failAll(new BulkWriteException("the client was shut down; bulk writer for '" + schema.tableName()
                    + "' cannot send", null, e));
            cancel("client shut down");
        }
        // The stream may have failed while this batch was being built: fail it rather than leave it waiting.
        f = failure;
        if (f != null) {
            fail(id, f);
        } else {
            enqueue(message);
        }
        return future;
    }

    private boolean acquireSlot() {
        if (config.whenFull() == BulkWrite.WhenFull.FailFast) {
            return slots.tryAcquire();
        }
        try {
            return slots.tryAcquire(config.timeoutMsPerMessage(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void enqueue(Object message) {
        synchronized (sendLock) {
            outbox.add(message);
        }
        drain();
    }

    private void drain() {
        synchronized (sendLock) {
            if (cancelled || closedFuture.isDone()) {
                clearOutbox();
                return;
            }
            while (!outbox.isEmpty() && call.isReady() && !halfClosed) {
                Object m = outbox.poll();
                try {
                    call.sendMessage(m);
                } finally {
                    // gRPC drains a message inside sendMessage; one it refused is freed here (release is idempotent).
                    if (m instanceof FlightMessages.BatchMessage) {
                        ((FlightMessages.BatchMessage) m).release();
                    }
                }
            }
            if (halfClosePending && outbox.isEmpty() && !halfClosed) {
                halfClosed = true;
                call.halfClose();
            }
        }
    }

    /** Drops unsent messages, freeing the Arrow memory of those sent from it; caller holds sendLock. */
    private void clearOutbox() {
        for (Object m : outbox) {
            if (m instanceof FlightMessages.BatchMessage) {
                ((FlightMessages.BatchMessage) m).release();
            }
        }
        outbox.clear();
    }

    private void cancel(String why) {
        synchronized (sendLock) {
            cancelled = true;
            clearOutbox();
        }
        call.cancel(why, null);
    }

    private void cancelCurrent(String why) {
        ClientCall<Object, Flight.PutResult> c;
        synchronized (sendLock) {
            c = call;
            clearOutbox();
        }
        c.cancel(why, null);
    }

    /**
     * After a broken stream: opens a new one and resends every unanswered batch with its original id.
     *
     * @return true when a replay started
     */
    private boolean replay(Status status) {
        if (!config.replayOnFailure() || closed || pending.isEmpty() && !completing) {
            return false;
        }
        Err err = GrpcErrors.fromThrowable(status.asRuntimeException(), List.of(schema.tableName()));
        boolean retryable = status.getCode() == Status.Code.CANCELLED || err.retryable();
        if (!retryable || replays >= config.maxReplays()) {
            return false;
        }
        replays++;
        transport.events().replayed();
        LOG.info("bulk stream of '{}' broke ({}); replaying {} unanswered batches on a new stream", schema.tableName(),
                status.getCode(), pending.size());
        List<Pending> unanswered = new ArrayList<>(pending.values());
        unanswered.sort(java.util.Comparator.comparingLong(Pending::id));
        synchronized (sendLock) {
            clearOutbox();
            openCall();
            for (Pending p : unanswered) {
                outbox.add(p.message());
            }
            // A completing writer half-closes the new stream too, once the replay is sent.
        }
        long timeout = config.timeoutMsPerMessage();
        for (Pending p : unanswered) {
            try {
                transport.timer().schedule(() -> timeout(p.id()), timeout, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                return false;
            }
        }
        drain();
        return true;
    }

    private void timeout(long id) {
        if (!pending.containsKey(id)) {
            return;
        }
        if (config.replayOnFailure() && replays < config.maxReplays() && !closed) {
            // The stream is presumed broken: cancel it; its close reopens and replays what is unanswered.
            cancelCurrent("batch " + id + " timed out; replaying unanswered batches");
            return;
        }
        BulkWriteException e = new BulkWriteException("batch " + id + " of '" + schema.tableName()
                + "' had no answer within " + config.timeoutMsPerMessage() + " ms; the stream was cancelled", null, null);
        failAll(e);
        cancel("batch " + id + " timed out");
    }

    private void fail(long id, BulkWriteException e) {
        Pending p = pending.remove(id);
        if (p != null) {
            failed.incrementAndGet();
            slots.release();
            transport.events().failed(e.err());
            transport.callbackExecutor().execute(() -> p.future.completeExceptionally(e));
        }
    }

    private void failAll(BulkWriteException e) {
        if (failure == null) {
            failure = e;
            LOG.warn("bulk stream of '{}' failed: {}", schema.tableName(), e.getMessage());
        }
        for (Long id : new ArrayList<>(pending.keySet())) {
            fail(id, e);
        }
    }

    /** Receives answers of one call; runs on the callback executor. */
    private final class Listener extends ClientCall.Listener<Flight.PutResult> {
        private final int gen;

        Listener(int gen) {
            this.gen = gen;
        }

        @Override
        public void onMessage(Flight.PutResult message) {
            FlightMessages.Answer a = FlightMessages.answer(message);
            if (a.requestId() == 0) {
                return;
            }
            Pending p = pending.remove(a.requestId());
            if (p != null) {
                acked.incrementAndGet();
                ackedRows.addAndGet(a.affectedRows());
                slots.release();
                transport.events().acked(schema.tableName(), a.affectedRows(), p.size(), System.nanoTime() - p.sentAt());
                p.future.complete((int) a.affectedRows());
            }
        }

        @Override
        public void onReady() {
            if (gen == generation) {
                drain();
            }
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            synchronized (sendLock) {
                if (gen != generation) {
                    return; // an earlier stream, already replaced by a replay
                }
            }
            if ((!status.isOk() || !pending.isEmpty()) && replay(status)) {
                return;
            }
            if (status.isOk()) {
                if (!pending.isEmpty()) {
                    failAll(new BulkWriteException("the stream of '" + schema.tableName() + "' ended with "
                            + pending.size() + " batches unanswered (the server drops answers beyond 32 unsent)", null, null));
                }
            } else {
                Err err = GrpcErrors.fromThrowable(status.asRuntimeException(trailers), List.of(schema.tableName()));
                failAll(new BulkWriteException("bulk stream of '" + schema.tableName() + "' failed: " + err.message(),
                        err, status.asRuntimeException(trailers)));
            }
            closedFuture.complete(status);
        }
    }

    /**
     * Ends the stream and waits for every outstanding answer (at most {@code timeoutMsPerMessage} + 1 s).
     *
     * @return the rows the server acknowledged over the writer's life
     * @throws BulkWriteException when any batch failed or the stream ended in error
     */
    public long completed() {
        if (closed) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        if (!completing) {
            completing = true;
            synchronized (sendLock) {
                halfClosePending = true;
            }
            drain();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.timeoutMsPerMessage() + 1_000);
        try {
            closedFuture.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            BulkWriteException t = new BulkWriteException("the stream of '" + schema.tableName()
                    + "' did not finish within " + (config.timeoutMsPerMessage() + 1_000) + " ms", null, null);
            failAll(t);
            cancel("completion timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failAll(new BulkWriteException("interrupted while completing", null, e));
            cancel("interrupted");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        BulkWriteException f = failure;
        if (f != null || failed.get() > 0) {
            throw new BulkWriteException("bulk write of '" + schema.tableName() + "' finished with " + failed.get()
                    + " failed and " + acked.get() + " acknowledged batches" + (f != null ? ": " + f.getMessage() : ""),
                    f != null ? f.err() : null, f);
        }
        return ackedRows.get();
    }

    /**
     * Counts batches the server answered.
     *
     * @return acknowledged batches
     */
    public long ackedBatches() {
        return acked.get();
    }

    /**
     * Counts stream reopenings after failures (with {@code replayOnFailure}).
     *
     * @return replays
     */
    public int replays() {
        return replays;
    }

    /**
     * Counts batches that failed.
     *
     * @return failed batches
     */
    public long failedBatches() {
        return failed.get();
    }

    /**
     * Counts batches sent and not yet answered.
     *
     * @return unanswered batches
     */
    public int inFlight() {
        return pending.size();
    }

    /**
     * Returns the off-heap bytes the writer holds now.
     *
     * @return allocated bytes
     */
    public long allocatedBytes() {
        return allocator.getAllocatedMemory();
    }

    /**
     * Cancels the stream if it was not completed (unanswered batches fail) and releases every off-heap buffer.
     * Safe to call more than once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!closedFuture.isDone()) {
            failAll(new BulkWriteException("the bulk writer for '" + schema.tableName() + "' was closed before its"
                    + " batches were answered", null, null));
            cancel("bulk writer closed");
        }
        synchronized (sendLock) {
            clearOutbox();
        }
        if (root != null) {
            root.close();
        }
        allocator.close();
    }
}
