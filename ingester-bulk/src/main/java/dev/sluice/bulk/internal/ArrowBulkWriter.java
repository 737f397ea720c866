package dev.sluice.bulk.internal;

import dev.sluice.write.StatusCode;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.internal.send.BulkHost;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.SendEngine;
import dev.sluice.write.Compression;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * The {@link BulkStreamWriter} over Arrow Flight {@code DoPut}: batches built in Arrow vectors from the writer's
 * allocator (a capped child of the client's), sent, resent and answered by the client's send engine. The
 * delivery contract is {@link BulkStreamWriter}'s.
 */
final class ArrowBulkWriter implements BulkStreamWriter {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BulkStreamWriter.class);
    /**
     * Batches at least this large stay in the Arrow memory they were built in until answered, and the next rows get
     * fresh buffers; smaller ones are copied to the heap and the vectors refilled. Fresh buffers cost a fixed price
     * per batch (allocation, zeroing, cold memory) that only large batches amortize: on the 1,000-row metrics
     * benchmark (about 100 KB a batch) keeping every batch cost 25% of bulk throughput and 20% more client CPU than
     * the copy, while a 65,536-row logs batch (about 150 MB) copied to the heap cost over 1 GiB of heap.
     */
    static final int KEEP_IN_ARROW_BYTES = 4 << 20;
    /**
     * How long {@link #close()} waits for the transport to let go of batch memory handed to it (a cancelled call's
     * queued writes are dropped on netty's event loop, normally within milliseconds).
     */
    static final long HAND_BACK_WAIT_MS = 5_000;
    private final TableSchema schema;
    private final java.util.function.Consumer<ArrowBulkWriter> onClose;
    private final BulkWrite.Config config;
    private final BulkHost host;
    private final RetryPolicy policy;
    /** {@code host:port} of the endpoint the current stream went to, named in transport failures. */
    private volatile String authority;
    private final BufferAllocator allocator;
    private final CompressionCodec codec;
    private final Semaphore slots;
    /** Sends, resends and answers the batches: the client's one send engine, shared with streams. */
    private final SendEngine<Object, Flight.PutResult, Batch> engine;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackedRows = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private ArrowTableBufferRoot root;
    private long nextId;
    private volatile BulkWriteException failure;
    private volatile boolean completing;
    private volatile boolean closed;
    /** Held by the producer while it changes or sends the batch; off-heap memory is freed only under it. */
    private final ReentrantLock producing = new ReentrantLock();
    /** Guarded by {@link #producing}. */
    private boolean freed;
    /** Guards the two fields below; notified whenever a batch's memory is freed. */
    private final Object memoryLock = new Object();
    /** Batches whose Arrow memory is not freed yet: kept for a resend, or still read by the transport. */
    private int unfreed;
    /** Set when close found the transport still reading batches: the last one freed closes the allocator. */
    private boolean closeWhenFreed;
    private final ArrowTableBufferRoot.Guard guard = new ArrowTableBufferRoot.Guard() {
        @Override
        public void enter() {
            producing.lock();
            if (closed) {
                freeMemory();
                producing.unlock();
                throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
            }
        }

        @Override
        public void exit() {
            if (closed) {
                freeMemory(); // closed from another thread while this producer wrote: the last one out frees
            }
            producing.unlock();
        }
    };

    /** One unanswered batch: its message (Arrow memory or a heap copy), its room in the budget and its future. */
    private static final class Batch extends SendEngine.Entry<Object> {
        final int rows;
        /** The batch as heap bytes, when the allocator had no room to keep it; else null. */
        final byte[] copy;
        final Runnable budget;
        final CompletableFuture<Integer> future = new CompletableFuture<>();
        /** The batch in Arrow memory until the engine releases it (answered, failed, or sent when nothing is resent). */
        private FlightMessages.BatchMessage message;

        Batch(long id, int rows, int size, long deadline, byte[] copy, FlightMessages.BatchMessage message, Runnable budget) {
            super(id, size, deadline);
            this.rows = rows;
            this.copy = copy;
            this.message = message;
            this.budget = budget;
        }

        @Override
        protected Object payload() {
            return message != null ? message : copy;
        }

        /** Frees the batch's Arrow memory, if it holds any; under the engine's lock or once no call can send it. */
        @Override
        protected void release() {
            FlightMessages.BatchMessage m = message;
            if (m != null) {
                message = null;
                m.release();
            }
        }
    }

    /**
     * Opens the stream (the client's {@code GreptimeDB.bulkStreamWriter}, through {@link ArrowBulkPlugin}).
     *
     * @param schema the table's schema
     * @param config writer settings
     * @param compression None, Zstd and Lz4 as Arrow IPC compression; Gzip as gRPC message compression
     * @param policy how unanswered batches are resent
     * @param appendMode whether the table is written in append mode (no resend after an ambiguous outcome)
     * @param host what the writer borrows from its client
     * @param clientRoot the client's Arrow root allocator; the writer takes a capped child of it
     * @param onClose told once the writer is closed
     */
    ArrowBulkWriter(TableSchema schema, BulkWrite.Config config, Compression compression, RetryPolicy policy,
                    boolean appendMode, BulkHost host, BufferAllocator clientRoot,
                    java.util.function.Consumer<ArrowBulkWriter> onClose) {
        ArrowSupport.check();
        // The client refused schemas the bulk path cannot write (JSON, Vector) before opening this writer.
        this.schema = schema;
        this.config = config;
        this.host = host;
        this.onClose = onClose;
        this.policy = policy;
        this.allocator = clientRoot.newChildAllocator("bulk-" + schema.tableName(),
                config.allocatorInitReservation(), config.allocatorMaxAllocation());
        this.codec = compression == Compression.Zstd
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD)
                : compression == Compression.Lz4
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME)
                : NoCompressionCodec.INSTANCE;
        this.slots = new Semaphore(config.maxInFlightRequests(), true);
        // Every batch is kept for a resend until answered, unless the policy allows no resend.
        SendEngine.Settings<Object> settings = new SendEngine.Settings<>(host.timer(), policy,
                appendMode, config.requestTimeout(), null,
                FlightMessages.schemaMessage(schema.tableName(), ArrowTypes.fields(schema)),
                policy.maxAttempts() > 1 ? null : "the retry policy allows no resend", host::stopped, "batch",
                host.clock());
        io.grpc.CallOptions options = compression == Compression.Gzip
                ? io.grpc.CallOptions.DEFAULT.withCompression("gzip") : io.grpc.CallOptions.DEFAULT;
        this.engine = new SendEngine<>(settings, host.route(),
                ch -> {
                    authority = ch.authority();
                    return ch.newCall(FlightMessages.DO_PUT, options);
                }, new Events());
        engine.open();
    }

    /**
     * Returns the writer's batch, creating it on first call. The same batch is returned every time.
     *
     * @param columnBufferSize rows to allocate room for up front (the batch still grows past it)
     * @return the batch
     * @throws BulkWriteException when even the initial vectors exceed {@code allocatorMaxAllocation}
     */
    @Override
    public TableBufferRoot tableBufferRoot(int columnBufferSize) {
        checkOpen();
        if (root == null) {
            root = new ArrowTableBufferRoot(schema, allocator, Math.max(1, columnBufferSize), config.allocatorMaxAllocation(),
                    guard);
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
     * Blocks while {@code maxInFlightRequests} batches are unanswered (at most {@code maxBlock}, or
     * not at all with {@code WhenFull.FailFast}) and while the client's byte budget is used up (as the client's
     * limit policy says).
     *
     * @return completes with the rows the server wrote for this batch, or with a {@link BulkWriteException}
     */
    @Override
    public CompletableFuture<Integer> writeNext() {
        checkOpen();
        guard.enter();
        try {
            return writeNextGuarded();
        } finally {
            guard.exit();
        }
    }

    private CompletableFuture<Integer> writeNextGuarded() {
        if (root == null || root.rowCount() == 0) {
            if (root != null) {
                root.reset();
            }
            return CompletableFuture.completedFuture(0);
        }
        int rows = root.rowCount();
        BulkWriteException f = failure;
        if (f == null && host.stopped()) {
            f = new BulkWriteException("the client of the bulk writer for '" + schema.tableName() + "' is shut down",
                    localError(StatusCode.Grpc.UNAVAILABLE, "client shut down", false, List.of(schema.tableName())), null);
        }
        if (f != null) {
            root.reset();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(f);
        }
        if (!acquireSlot()) {
            // Nothing is sent and nothing dropped: the batch keeps its rows for the next writeNext().
            if (Thread.currentThread().isInterrupted()) {
                String why = "interrupted while waiting for an answer slot of '" + schema.tableName() + "'; the batch"
                        + " keeps its " + rows + " rows";
                return CompletableFuture.failedFuture(new BulkWriteException(why,
                        localError(StatusCode.Grpc.CANCELLED, why, false, List.of(schema.tableName())), null));
            }
            String why = "no answer slot freed: " + config.maxInFlightRequests() + " batches of '" + schema.tableName()
                    + "' unanswered" + (config.whenFull() == dev.sluice.write.WhenFull.Block ? " for " + config.maxBlock().toMillis()
                    + " ms" : "") + "; the batch keeps its " + rows + " rows: call writeNext() again once a batch is"
                    + " answered";
            return CompletableFuture.failedFuture(new dev.sluice.LimitExceededException(why));
        }
        if (closed) {
            slots.release(); // closed from another thread while this producer waited for the slot
            root.reset();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(closedError());
        }
        long id = ++nextId;
        byte[] copy = null;
        FlightMessages.BatchMessage message = null;
        int size;
        try {
            ArrowRecordBatch batch = root.unload(codec);
            FlightMessages.BatchMessage m;
            try {
                m = FlightMessages.batchMessage(batch, id, host.handOff(), this::messageFreed);
                messageCreated();
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
            try {
                if (m.size() >= KEEP_IN_ARROW_BYTES && root.renew()) {
                    // The batch holds the vectors' memory now (the next rows go to fresh buffers): sent from it, and
                    // kept until answered so that a broken stream can resend it without a copy.
                    message = m;
                } else {
                    // A small batch, or the allocator's cap leaves no room for fresh buffers: a heap copy, the same
                    // vectors refilled.
                    copy = m.toBytes();
                    m.release();
                    root.reset();
                }
            } catch (RuntimeException e) {
                m.release();
                throw e;
            }
            size = m.size();
        } catch (RuntimeException e) {
            root.reset();
            slots.release();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(e instanceof BulkWriteException ? e
                    : new BulkWriteException("could not serialize batch " + id + " of '" + schema.tableName() + "'", null, e));
        }
        Runnable budget;
        try {
            budget = host.acquire(size);
        } catch (RuntimeException e) {
            if (message != null) {
                message.release();
            }
            slots.release();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(new BulkWriteException("batch " + id + " of '" + schema.tableName()
                    + "' (" + size + " bytes) got no room in the client's memory budget: " + e.getMessage(), null, e));
        }
        Batch p = new Batch(id, rows, size, host.clock().getAsLong() + policy.deliveryTimeout().toNanos(), copy, message,
                budget);
        BulkWriteException refused = closed ? closedError() : failure;
        try {
            if (refused == null && !engine.submit(p)) {
                refused = failure != null ? failure : closedError(); // failed or closed meanwhile
            }
        } catch (RuntimeException e) {
            // Opening a call can fail locally (the client's channels or executor shut down meanwhile).
            refused = new BulkWriteException("could not send batch " + id + " of '" + schema.tableName() + "': " + e,
                    host.error(e, List.of(schema.tableName()), authority), e);
        }
        if (refused != null) {
            settle(List.of(p), refused);
        }
        return p.future;
    }

    private boolean acquireSlot() {
        if (config.whenFull() == dev.sluice.write.WhenFull.FailFast) {
            return slots.tryAcquire();
        }
        try {
            return slots.tryAcquire(config.maxBlock().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Completes failed batches: gives back their memory, room and slot, then fails their futures on the callback executor. */
    private void settle(List<Batch> batches, BulkWriteException e) {
        for (Batch p : batches) {
            p.release(); // a batch the engine never took; the engine released the others already
            p.budget.run();
            failed.incrementAndGet();
            slots.release();
            host.failed(e.err());
            try {
                host.callbackExecutor().execute(() -> p.future.completeExceptionally(e));
            } catch (RejectedExecutionException rejected) {
                p.future.completeExceptionally(e);
            }
        }
    }

    /** An error the writer raises itself: nothing, or not everything, reached the server. */
    private static Err localError(StatusCode.Grpc grpc, String message, boolean retryable, List<String> tables) {
        return new Err(-1, grpc, message, retryable, tables, null);
    }

    private BulkWriteException closedError() {
        return new BulkWriteException("the bulk writer for '" + schema.tableName() + "' was closed before its"
                + " batches were answered", null, null);
    }

    /** What the engine tells the writer: answers, how a call ended, batches failed for good, resends. */
    private final class Events implements SendEngine.Handler<Flight.PutResult, Batch> {
        /**
         * Set by the first transport failure of a run (warned about), cleared by the next answer: later ones are
         * logged at DEBUG.
         */
        private volatile boolean breaking;

        /** An answer completes its batch, whichever call carried it (an answered batch is committed). */
        @Override
        public void onResponse(Flight.PutResult message, boolean fromCurrentCall) {
            FlightMessages.Answer a = FlightMessages.answer(message);
            if (a.requestId() == 0) {
                return; // the server's greeting
            }
            if (breaking) {
                breaking = false;
            }
            Batch p = engine.ack(a.requestId());
            if (p == null) {
                return;
            }
            p.budget.run();
            slots.release();
            acked.incrementAndGet();
            ackedRows.addAndGet(a.affectedRows());
            host.acked(schema.tableName(), a.affectedRows(), p.size(), host.clock().getAsLong() - p.sentAt());
            p.future.complete((int) a.affectedRows());
        }

        @Override
        public SendEngine.Ending ended(Status status, Metadata trailers, String timeout, int unanswered) {
            List<String> table = List.of(schema.tableName());
            if (timeout != null) {
                return new SendEngine.Broken(localError(StatusCode.Grpc.DEADLINE_EXCEEDED, timeout, true, table), true, null);
            }
            if (status.isOk()) {
                if (unanswered == 0) {
                    return new SendEngine.Answered(false);
                }
                return new SendEngine.Broken(localError(StatusCode.Grpc.UNAVAILABLE, "the stream ended with " + unanswered
                        + " batches unanswered (the server drops answers beyond 32 unsent)", true, table), true, null);
            }
            Throwable cause = status.asRuntimeException(trailers);
            Err err = host.error(cause, table, authority);
            // A status from the server itself ends the stream at the failed batch: later ones were not read.
            return new SendEngine.Broken(err, err.code() < 0, cause);
        }

        @Override
        public void failed(List<Batch> batches, SendEngine.Broken broken, String notResent) {
            BulkWriteException error = new BulkWriteException("bulk stream of '" + schema.tableName() + "' failed: "
                    + broken.err().message() + (notResent != null ? " (not resent: " + notResent + ")" : ""),
                    broken.err(), broken.cause());
            if (failure == null) {
                failure = error;
            }
            LOG.warn("{}", error.getMessage());
            settle(batches, error);
        }

        @Override
        public void resending(SendEngine.Broken broken, int batches) {
            host.replayed();
            if (broken.serverRefusal()) {
                // The server refused for now (rate limiting, a region moving): part of normal operation.
                LOG.info("bulk stream of '{}' broke ({}); resending {} unanswered batches on a new stream",
                        schema.tableName(), broken.err().message(), batches);
            } else if (!breaking) {
                breaking = true;
                LOG.warn("bulk stream of '{}' broke ({}); its {} unanswered batches are resent on a new stream after"
                        + " the retry policy's backoff, each until its delivery deadline ({} s after its writeNext())"
                        + " or the policy's attempts run out, then fail. Further breaks are logged at DEBUG until the"
                        + " server answers again", schema.tableName(), broken.err().message(), batches,
                        policy.deliveryTimeout().toSeconds());
            } else {
                LOG.debug("bulk stream of '{}' broke again ({}); resending {} unanswered batches on a new stream",
                        schema.tableName(), broken.err().message(), batches);
            }
        }
    }

    /**
     * Ends the stream and waits for every outstanding answer, resends included: at most the later of
     * {@code requestTimeout} and the last unanswered batch's delivery deadline, plus one second. Rows added to
     * the batch since the last {@link #writeNext()} (completed or not) are sent first, as the last batch, and
     * count like any other: they are acknowledged in the returned total, or their failure makes this throw.
     *
     * @return the rows the server acknowledged over the writer's life
     * @throws BulkWriteException when any batch failed or the stream ended in error
     */
    @Override
    public long completed() {
        if (closed) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        if (!completing && root != null && root.rowCount() > 0) {
            // The last batch was filled but never passed to writeNext(): sent now, never dropped. Its outcome
            // reaches the caller through the counts below.
            LOG.debug("bulk writer for '{}' completed with {} rows not passed to writeNext(): sending them as the"
                    + " last batch", schema.tableName(), root.rowCount());
            writeNext();
        }
        long now = host.clock().getAsLong();
        long waitNanos = Math.max(config.requestTimeout().toNanos(), engine.lastDeadline(now) - now);
        if (!completing) {
            completing = true;
            engine.halfClose();
        }
        waitNanos += TimeUnit.SECONDS.toNanos(1);
        try {
            engine.done().get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            abort(new BulkWriteException("the stream of '" + schema.tableName() + "' did not finish within "
                    + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms", null, null), "completion timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort(new BulkWriteException("interrupted while completing", null, e), "interrupted");
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
     * Fails every unanswered batch because the client shuts down (a resend waiting on its stopped timer would
     * never run), and ends the stream: {@link #completed()} then throws with the reason.
     *
     * @param why the reason
     */
    void failUnanswered(String why) {
        abort(new BulkWriteException("bulk write of '" + schema.tableName() + "': " + why, localError(
                StatusCode.Grpc.UNAVAILABLE, why, true, List.of(schema.tableName())), null), why);
    }

    /** Fails every unanswered batch with {@code e} and cancels the stream. */
    private void abort(BulkWriteException e, String why) {
        if (failure == null) {
            failure = e;
        }
        settle(engine.abort(why), e);
    }

    /**
     * Counts batches the server answered.
     *
     * @return acknowledged batches
     */
    @Override
    public long ackedBatches() {
        return acked.get();
    }

    /**
     * Counts stream reopenings after retryable failures.
     *
     * @return reopenings
     */
    @Override
    public int replays() {
        return engine.reopenings();
    }

    /**
     * Counts batches that failed.
     *
     * @return failed batches
     */
    @Override
    public long failedBatches() {
        return failed.get();
    }

    /**
     * Counts batches sent (or waiting to be resent) and not yet answered.
     *
     * @return unanswered batches
     */
    @Override
    public int inFlight() {
        return engine.pendingCount();
    }

    /**
     * Returns the off-heap bytes the writer holds now.
     *
     * @return allocated bytes
     */
    @Override
    public long allocatedBytes() {
        return allocator.getAllocatedMemory();
    }

    /**
     * Cancels the stream if it was not completed (unanswered batches fail) and releases every off-heap buffer.
     * Rows added to the batch and never sent (no {@link #writeNext()} or {@link #completed()} after them) are
     * discarded, with a warning naming how many. Safe to call more than once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        TableBufferRoot unsent = root;
        if (!completing && unsent != null && unsent.rowCount() > 0) {
            LOG.warn("bulk writer for '{}' closed with {} rows never passed to writeNext() or completed(): they were"
                    + " not sent", schema.tableName(), unsent.rowCount());
        }
        closed = true;
        onClose.accept(this);
        abort(closedError(), "bulk writer closed");
        boolean mine;
        try {
            // A producer on another thread finishes its current step first (abort freed any slot it waits for).
            mine = producing.tryLock(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            mine = false;
        }
        if (!mine) {
            LOG.warn("bulk writer for '{}' closed while a producer thread still writes; it frees the off-heap memory"
                    + " when it returns", schema.tableName());
            return;
        }
        try {
            freeMemory();
        } finally {
            producing.unlock();
        }
    }

    /**
     * Releases every off-heap buffer, once; holds {@link #producing}. Unanswered batches still hold theirs: they
     * are failed first (the writer is closed), so that the allocator closes with nothing outstanding. Buffers the
     * transport still reads (handed to netty and not yet written or dropped by the cancelled call) are waited for,
     * at most {@link #HAND_BACK_WAIT_MS}; if some are still out then, the last one back closes the allocator.
     */
    private void freeMemory() {
        if (freed) {
            return;
        }
        freed = true;
        BulkWriteException e = closedError();
        settle(engine.abort("bulk writer closed"), e);
        if (root != null) {
            root.close();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HAND_BACK_WAIT_MS);
        synchronized (memoryLock) {
            boolean interrupted = false;
            long left;
            while (unfreed > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(memoryLock, left);
                } catch (InterruptedException ie) {
                    interrupted = true;
                    break;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (unfreed > 0) {
                closeWhenFreed = true;
                LOG.warn("bulk writer for '{}' closed while the transport still holds {} of its batches; their memory"
                        + " is freed when it lets go", schema.tableName(), unfreed);
                return;
            }
        }
        allocator.close();
    }

    private void messageCreated() {
        synchronized (memoryLock) {
            unfreed++;
        }
    }

    /** A batch's memory is freed (by its owner's release or by the transport letting go, on any thread). */
    private void messageFreed() {
        boolean closeNow;
        synchronized (memoryLock) {
            unfreed--;
            memoryLock.notifyAll();
            closeNow = unfreed == 0 && closeWhenFreed;
            closeWhenFreed = false;
        }
        if (closeNow) {
            allocator.close();
        }
    }
}
