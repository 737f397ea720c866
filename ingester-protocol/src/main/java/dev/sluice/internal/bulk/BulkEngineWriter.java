package dev.sluice.internal.bulk;

import dev.sluice.LimitExceededException;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BatchGuard;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.internal.limit.InFlightLimiter;
import dev.sluice.internal.send.EngineWriter;
import dev.sluice.internal.send.SendEngine;
import dev.sluice.write.Compression;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The {@link BulkStreamWriter}: batches built and encoded by the bulk codec ({@link TableCodec}) and handed to the
 * client's one writer on the send engine ({@link EngineWriter}), which holds each batch's answer slot and room in the
 * client-wide byte budget until it is answered, sends and resends it, and settles it. This class keeps what is
 * bulk's own: the table's creation, the codec's batch and memory, and reading the server's per-batch answers. The
 * delivery contract is {@link BulkStreamWriter}'s.
 */
final class BulkEngineWriter implements BulkStreamWriter, BatchGuard {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BulkStreamWriter.class);
    private final TableSchema schema;
    /** The batch's column names in order, as a server refusal numbers them. */
    private final List<String> columnNames;
    /** The table's name, as answers are counted under it. */
    private final String table;
    /** How long a batch may take to be delivered, from its writeNext(). */
    private final long deliveryNanos;
    private final BulkWrite.Config config;
    /** True once the client shuts down. */
    private final BooleanSupplier stopped;
    private final RetryPolicy policy;
    private final TableCodec codec;
    private final Consumer<BulkEngineWriter> onClose;
    /** The table's creation, under way while the first batch is filled. */
    private final TableCreation creation;
    /**
     * Slots, budget, sends, resends, answers, failures and metrics of the batches: the client's one writer on the
     * send engine, shared with streams.
     */
    private final EngineWriter<BulkMessage, BulkAnswer, BulkWriteException> writer;
    private final SendEngine<BulkMessage, BulkAnswer, EngineWriter.Message<BulkMessage>> engine;
    private final EngineWriter.Breaks breaks;
    private TableBufferRoot root;
    /**
     * The rows the batch holds, as the codec reported at the last exit from it; written by the producer holding the
     * batch (published by the batch's release), read under the batch or, for a warning only, by a closing thread.
     */
    private int rows;
    private long nextId;
    /** gRPC compresses each batch (gzip) inside its send: not a job for the transport's thread. */
    private final boolean compressedByGrpc;
    private volatile boolean completing;
    private volatile boolean closed;
    /** {@link #closed}, for a wait for room in the client's budget to give up on (made once, not per batch). */
    private final BooleanSupplier isClosed = () -> closed;
    /**
     * The thread that holds the writer's batch: the producer while it changes or sends the batch, or {@link #close}
     * while it frees the memory; null when none does. Off-heap memory is freed only by its holder. One producer
     * thread at a time is the contract; a second one waits here rather than writing into the same memory.
     */
    private volatile Thread holder;
    private static final VarHandle HOLDER;
    /** How many times the holder entered again while holding the batch; read and written by the holder only. */
    private int depth;
    /** Set once, by whoever frees the off-heap memory. */
    private final AtomicBoolean freed = new AtomicBoolean();
    /** The messages unloaded whose memory is not freed yet; the codec's memory is closed once none is. */
    private final UnfreedMessages unfreed;

    static {
        try {
            HOLDER = MethodHandles.lookup().findVarHandle(BulkEngineWriter.class, "holder", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Enters the batch for a change: the codec calls this around every change of the batch, and
     * {@link #writeNext} around sending it.
     *
     * @throws IllegalStateException when the writer is closed or completed (nothing is entered)
     */
    @Override
    public void enter() {
        hold();
        if (closed) {
            freeMemory();
            let();
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        if (completing) {
            let();
            throw completedError();
        }
    }

    /**
     * Exits the batch after a change; frees the writer's memory if it was closed meanwhile.
     *
     * @param rows the rows the batch holds now
     */
    @Override
    public void exit(int rows) {
        this.rows = rows;
        exit();
    }

    /** Exits the batch; frees the writer's memory if it was closed meanwhile. */
    private void exit() {
        if (closed) {
            freeMemory(); // closed from another thread while this producer wrote: the last one out frees
        }
        let();
    }

    /**
     * Takes the batch for the calling thread, waiting while another thread holds it; one atomic instruction when
     * none does (the producer's case on every row). Reentrant, as {@link #let} undoes one take.
     */
    private void hold() {
        Thread me = Thread.currentThread();
        if (holder == me) {
            depth++; // entered again from within (a row still open, say): the check that follows then refuses
            return;
        }
        if (!HOLDER.compareAndSet(this, null, me)) {
            holdHeld(me);
        }
    }

    /**
     * Takes the batch another thread holds: waits for it at most {@code requestTimeout}, or takes it over at once
     * from a thread that ended holding it.
     */
    private void holdHeld(Thread me) {
        long deadline = System.nanoTime() + config.requestTimeout().toNanos();
        while (!HOLDER.compareAndSet(this, null, me)) {
            Thread h = holder;
            if (h != null && !h.isAlive() && HOLDER.compareAndSet(this, h, me)) {
                // Every hold ends with its call but a typed row's, which lasts until the row is ended or
                // cancelled: the thread ended with a row it began still open. This thread takes the batch over
                // with that row's hold, which ending or cancelling the row gives back (the row appender reports
                // the open row to the calls that need it closed).
                depth = 1;
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("the batch of the bulk writer for '" + schema.tableName() + "' is"
                        + " held by thread '" + (h == null ? "?" : h.getName()) + "' for longer than requestTimeout"
                        + " (" + config.requestTimeout().toMillis() + " ms): one producer thread at a time; end or"
                        + " cancel on that thread a row it began with the row appender");
            }
            LockSupport.parkNanos(this, HOLD_POLL_NANOS);
        }
    }

    /** Lets the batch go; no fence: a thread waiting in {@link #hold} or {@link #holdUntil} sees it soon enough. */
    private void let() {
        if (depth > 0) {
            depth--;
            return;
        }
        HOLDER.setRelease(this, null);
    }

    /**
     * Takes the batch for the calling thread as {@link #hold} does, waiting at most until {@code deadline}.
     *
     * @return 1 when taken, 0 when this thread already held it, -1 when the deadline passed
     */
    private int holdUntil(long deadline) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (holder == me) {
            return 0;
        }
        while (!HOLDER.compareAndSet(this, null, me)) {
            Thread h = holder;
            if (h != null && !h.isAlive() && HOLDER.compareAndSet(this, h, me)) {
                depth = 0; // taken over from a thread that ended with a row still open (see holdHeld)
                return 1;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return -1;
            }
            LockSupport.parkNanos(this, Math.min(left, HOLD_POLL_NANOS));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return 1;
    }

    /** How long a thread waiting for the batch sleeps between looks. */
    private static final long HOLD_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * Opens the stream.
     *
     * @param schema the table's schema
     * @param config writer settings
     * @param compression None, Zstd and Lz4 are the codec's; Gzip is gRPC message compression
     * @param policy how unanswered batches are resent
     * @param appendMode whether the table is written in append mode (no resend after an ambiguous outcome)
     * @param client what the writer shares with its client
     * @param method the codec's call
     * @param codec the writer's batches
     * @param creation the table's creation: the stream opens once the table exists
     * @param onClose told once the writer is closed
     */
    BulkEngineWriter(TableSchema schema, BulkWrite.Config config, Compression compression, RetryPolicy policy,
                     boolean appendMode, BulkClient client, MethodDescriptor<BulkMessage, BulkAnswer> method,
                     TableCodec codec, TableCreation creation, Consumer<BulkEngineWriter> onClose) {
        this.schema = schema;
        this.compressedByGrpc = compression == Compression.Gzip;
        this.columnNames = schema.columns().stream().map(TableSchema.Column::name).toList();
        this.table = schema.tableName();
        this.deliveryNanos = policy.deliveryTimeout().toNanos();
        this.config = config;
        this.stopped = client.stopped();
        this.policy = policy;
        this.codec = codec;
        this.onClose = onClose;
        this.creation = creation;
        this.unfreed = new UnfreedMessages(codec::close);
        this.breaks = new EngineWriter.Breaks("bulk stream of '" + schema.tableName() + "'", "unanswered batches",
                "resent", "resending", "each until its delivery deadline (" + policy.deliveryTimeout().toSeconds()
                + " s after its writeNext()) or the policy's attempts run out, then fail. Further breaks are logged at"
                + " DEBUG until the server answers again");
        // Every batch is kept for a resend until answered, unless the policy allows no resend.
        SendEngine.Settings<BulkMessage> settings = new SendEngine.Settings<>(client.timer(), policy,
                appendMode, config.requestTimeout(), null, codec.schemaMessage(),
                policy.maxAttempts() > 1 ? null : "the retry policy allows no resend", client.stopped(), "batch",
                client.clock());
        CallOptions options = (compression == Compression.Gzip
                ? CallOptions.DEFAULT.withCompression("gzip") : CallOptions.DEFAULT)
                .withOnReadyThreshold(ON_READY_BYTES);
        this.writer = new EngineWriter<>(settings, client.route(), method, options, client.shared(),
                config.maxInFlightRequests(), BulkMessage::release, LOG, new Events());
        this.engine = writer.engine();
        creation.whenCreated(engine::open);
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
            int rows = Math.max(1, columnBufferSize);
            checkInitialRoom(rows);
            // The vectors are allocated holding the batch, as every change of it is: a close from another thread
            // meanwhile waits, then frees them, rather than closing the memory while they are being allocated.
            enter();
            try {
                if (root == null) {
                    root = codec.rows(rows, this);
                }
            } finally {
                exit();
            }
        }
        return root;
    }

    /**
     * How many bytes of batches gRPC may hold unwritten before the stream reports itself not ready; below it, each
     * batch goes to gRPC inside its {@link #writeNext()}. gRPC's own default (32 KiB) is smaller than one batch of a
     * thousand rows, so the next batch would wait for the transport's ready signal, which gRPC delivers through the
     * callback executor: a thread hop and a wake-up per batch. The answer slots and the byte budget already bound
     * what is in flight; this bounds the extra copy gRPC makes of batches it cannot take without one (gzip).
     */
    static final int ON_READY_BYTES = 4 << 20;

    /**
     * Bytes a batch takes at least per row it has room for: the time index's 8-byte value (every column takes its
     * own bytes on top, so the batch needs more than this).
     */
    private static final long MIN_BYTES_PER_ROW = Long.BYTES;

    /**
     * Refuses room for more rows than the writer's memory can hold, before any is allocated: the time index alone
     * needs 8 bytes a row, within {@code allocatorMaxAllocation} for the batch and within the 2 GiB one Arrow
     * buffer holds. The batch grows past a smaller initial size as rows come, so a smaller one is always possible.
     */
    private void checkInitialRoom(int rows) {
        long least = rows * MIN_BYTES_PER_ROW;
        long max = config.allocatorMaxAllocation();
        long limit = Math.min(max, Integer.MAX_VALUE);
        if (least > limit) {
            String over = limit < max ? "the " + limit + " bytes one Arrow buffer holds, whatever allocatorMaxAllocation ("
                    + max + " bytes) allows" : "allocatorMaxAllocation (" + max + " bytes)";
            throw new BulkWriteException("tableBufferRoot(" + rows + ") for '" + table + "' asks for room for " + rows
                    + " rows: at least " + least + " bytes (8 a row for the time index '"
                    + schema.column(schema.timestampIndex()).name() + "' alone), over " + over + "; ask for at most "
                    + limit / MIN_BYTES_PER_ROW + " rows (the batch grows past its initial size as rows are added)"
                    + (limit < max ? "" : " or raise allocatorMaxAllocation") + "; nothing was allocated", null, null);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        if (completing) {
            throw completedError();
        }
    }

    /** The refusal of rows after {@link #completed()}: its stream has ended, a new writer takes more rows. */
    private IllegalStateException completedError() {
        return new IllegalStateException("the bulk writer for '" + table + "' is completed: its stream has ended and"
                + " takes no more rows; open a new writer (GreptimeDB.bulkStreamWriter) for '" + table + "' to send"
                + " more");
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
        return writeNext(0);
    }

    /**
     * Sends the batch as {@link #writeNext()} does, failing it by a deadline set earlier (a batching writer's batch
     * keeps the deadline counted from its own write) when that comes before the policy's from now.
     *
     * @param notAfter the latest delivery deadline, on the client's write clock, or 0 for none
     * @return as {@link #writeNext()}
     */
    CompletableFuture<Integer> writeNext(long notAfter) {
        checkOpen();
        return send(notAfter, config.whenFull(), config.maxBlock());
    }

    /** Sends the batch, waiting for an answer slot as {@code whenFull} and {@code maxBlock} say. */
    private CompletableFuture<Integer> send(long notAfter, WhenFull whenFull, Duration maxBlock) {
        enter();
        try {
            return writeNextGuarded(notAfter, whenFull, maxBlock);
        } finally {
            exit();
        }
    }

    private CompletableFuture<Integer> writeNextGuarded(long notAfter, WhenFull whenFull, Duration maxBlock) {
        int rows = this.rows;
        if (rows == 0) {
            if (root != null) {
                codec.reset();
            }
            return CompletableFuture.completedFuture(0);
        }
        BulkWriteException f = writer.failure();
        if (f != null) {
            f = new BulkWriteException("the bulk writer for '" + schema.tableName() + "' failed for good and takes no"
                    + " more batches (" + f.getMessage() + "); open a new writer for more rows", f.err(), f);
        }
        if (f == null && stopped.getAsBoolean()) {
            f = new BulkWriteException("the client of the bulk writer for '" + schema.tableName() + "' is shut down",
                    localError(StatusCode.Grpc.UNAVAILABLE, "client shut down", false), null);
        }
        if (f == null && (f = creation.await()) != null) {
            if (Thread.currentThread().isInterrupted()) {
                return CompletableFuture.failedFuture(f); // the batch keeps its rows for the next writeNext()
            }
            writer.fail(f);
        }
        if (f != null) {
            codec.reset();
            this.rows = 0;
            writer.refused(f.err());
            return CompletableFuture.failedFuture(f);
        }
        if (!writer.takeSlot(whenFull, maxBlock)) {
            // Nothing is sent and nothing dropped: the batch keeps its rows for the next writeNext().
            if (Thread.currentThread().isInterrupted()) {
                String why = "interrupted while waiting for an answer slot of '" + schema.tableName() + "'; the batch"
                        + " keeps its " + rows + " rows";
                return CompletableFuture.failedFuture(new BulkWriteException(why,
                        localError(StatusCode.Grpc.CANCELLED, why, false), null));
            }
            String why = "no answer slot freed: " + config.maxInFlightRequests() + " batches of '" + schema.tableName()
                    + "' unanswered" + (whenFull == WhenFull.Block ? " for " + maxBlock.toMillis()
                    + " ms" : "") + "; the batch keeps its " + rows + " rows: call writeNext() again once a batch is"
                    + " answered";
            return CompletableFuture.failedFuture(new dev.sluice.LimitExceededException(why));
        }
        if (closed) {
            return droppedAsClosed(); // closed from another thread while this producer waited for the slot
        }
        // Room in the client's byte budget is taken before the batch is unloaded, so that a batch finding none
        // keeps its rows, as one finding no slot does.
        InFlightLimiter.Permit room;
        try {
            room = writer.reserve(codec.sizeBound(), isClosed);
        } catch (LimitExceededException e) {
            if (closed) {
                return droppedAsClosed(); // closed from another thread while this producer waited for room
            }
            writer.unslot();
            return CompletableFuture.failedFuture(new LimitExceededException("no room in the client's byte budget"
                    + " for the batch of '" + schema.tableName() + "': " + e.getMessage() + "; the batch keeps its "
                    + rows + " rows: call writeNext() again once batches are answered, or raise maxInFlightBytes"));
        }
        if (closed) {
            room.release();
            return droppedAsClosed(); // closed from another thread while this producer waited for room
        }
        long id = ++nextId;
        BulkMessage message;
        try {
            message = codec.unload(id);
        } catch (RuntimeException e) {
            this.rows = 0; // emptied on failure too
            room.release();
            writer.dropped(null);
            return CompletableFuture.failedFuture(e instanceof BulkWriteException ? e
                    : new BulkWriteException("could not serialize batch " + id + " of '" + schema.tableName() + "'", null, e));
        }
        this.rows = 0; // emptied by the unload (a row left open in it was dropped, after it reported its count)
        unfreed.unloaded();
        message.whenFreed(unfreed);
        int size = message.size();
        long deadline = writer.now() + deliveryNanos;
        EngineWriter.Message<BulkMessage> batch = writer.admit(id, message, size,
                notAfter != 0 && notAfter - deadline < 0 ? notAfter : deadline, room);
        writer.submit(batch); // a refused batch's future fails with the refusal
        return batch.answer();
    }

    private Err localError(StatusCode.Grpc grpc, String message, boolean retryable) {
        return writer.localError(grpc, message, retryable);
    }

    /** The batch's rows are dropped because the writer was closed from another thread: the write fails and counts. */
    private CompletableFuture<Integer> droppedAsClosed() {
        writer.dropped(null);
        codec.reset();
        this.rows = 0;
        return CompletableFuture.failedFuture(closedError());
    }

    private BulkWriteException closedError() {
        return new BulkWriteException("the bulk writer for '" + schema.tableName() + "' was closed before its"
                + " batches were answered", null, null);
    }

    /** What the engine tells the writer: answers, clean ends, batches failed for good, how breaks are told. */
    private final class Events implements EngineWriter.Path<BulkAnswer, BulkWriteException> {
        @Override
        public String metric() {
            return "bulk";
        }

        @Override
        public List<String> tables() {
            return List.of(schema.tableName());
        }

        @Override
        public boolean answeredAsAWhole() {
            return false;
        }

        /**
         * Each answer is read on the transport's thread, which sends the batches queued meanwhile; not when gRPC
         * compresses the batches, which would then be compressed on that thread.
         */
        @Override
        public boolean answersOnTransport() {
            return !compressedByGrpc;
        }

        /** An answer completes its batch, whichever call carried it (an answered batch is committed). */
        @Override
        public void onResponse(BulkAnswer a, boolean fromCurrentCall) {
            if (a.requestId() == 0) {
                return; // the server's greeting
            }
            writer.acknowledge(a.requestId(), table, a.affectedRows());
        }

        @Override
        public SendEngine.Ending cleanEnd(int unanswered) {
            if (unanswered == 0) {
                return new SendEngine.Answered(false);
            }
            return new SendEngine.Broken(localError(StatusCode.Grpc.UNAVAILABLE, "the stream ended with " + unanswered
                    + " batches unanswered (the server drops answers beyond 32 unsent)", true), true, null);
        }

        @Override
        public BulkWriteException failure(SendEngine.Broken broken, String notResent) {
            // A batch column typed otherwise than the table is named by its position in the batch, which is the
            // writer's schema order (GreptimeDB passes on Arrow's "... at column index 1"; src/mito2/src/error.rs).
            Err err = broken.err().namingColumnAtIndex(columnNames);
            return new BulkWriteException("bulk stream of '" + schema.tableName() + "' failed: "
                    + err.message() + (notResent != null ? " (not resent: " + notResent + ")" : ""),
                    err, broken.cause());
        }

        @Override
        public BulkWriteException ended() {
            return closedError(); // closed meanwhile
        }

        @Override
        public BulkWriteException notSent(long id, RuntimeException cause, Err err) {
            // Opening a call can fail locally (the client's channels or executor shut down meanwhile).
            return new BulkWriteException("could not send batch " + id + " of '" + schema.tableName() + "': " + cause,
                    err, cause);
        }

        @Override
        public EngineWriter.Breaks breaks() {
            return breaks;
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
        BulkWriteException notCreated = creation.await();
        if (notCreated != null) {
            writer.fail(notCreated);
        }
        if (!completing && rows > 0) {
            // The last batch was filled but never passed to writeNext(): sent now, never dropped. It waits for an
            // answer slot as long as completing waits for answers (a slot frees when an unanswered batch is
            // answered or fails, by its deadline). Its outcome reaches the caller through the counts below; when
            // it could not be sent at all, the rows stay in the batch and this call says so.
            int left = rows;
            LOG.debug("bulk writer for '{}' completed with {} rows not passed to writeNext(): sending them as the"
                    + " last batch", schema.tableName(), left);
            long at = writer.now();
            Duration slotWait = Duration.ofNanos(Math.max(config.requestTimeout().toNanos(), engine.lastDeadline(at) - at));
            CompletableFuture<Integer> last = send(0, WhenFull.Block, slotWait);
            if (rows > 0 && last.isCompletedExceptionally()) {
                Throwable why = last.handle((r, t) -> t).join();
                throw new BulkWriteException("completed() could not send the last " + left + " rows of '"
                        + schema.tableName() + "' (" + why.getMessage() + "); they are still in the batch: call"
                        + " completed() again to send them, or close() to discard them", null, why);
            }
        }
        long now = writer.now();
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
        BulkWriteException f = writer.failure();
        if (f != null || writer.failed() > 0) {
            throw new BulkWriteException("bulk write of '" + schema.tableName() + "' finished with " + writer.failed()
                    + " failed and " + writer.acked() + " acknowledged batches"
                    + (f != null ? ": " + f.getMessage() : ""),
                    f != null ? f.err() : null, f);
        }
        return writer.ackedRows();
    }

    /**
     * Fails every unanswered batch because the client shuts down (a resend waiting on its stopped timer would
     * never run), and ends the stream: {@link #completed()} then throws with the reason.
     *
     * @param why the reason
     */
    void failUnanswered(String why) {
        abort(new BulkWriteException("bulk write of '" + schema.tableName() + "': " + why,
                localError(StatusCode.Grpc.UNAVAILABLE, why, true), null), why);
    }

    /** Fails every unanswered batch with {@code e} and cancels the stream. */
    private void abort(BulkWriteException e, String why) {
        writer.abort(e, why);
    }

    /**
     * Counts batches the server answered.
     *
     * @return acknowledged batches
     */
    @Override
    public long ackedBatches() {
        return writer.acked();
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
        return writer.failed();
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
        return codec.allocatedBytes();
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
        int unsent = rows;
        if (!completing && unsent > 0) {
            LOG.warn("bulk writer for '{}' closed with {} rows never passed to writeNext() or completed(): they were"
                    + " not sent", schema.tableName(), unsent);
        }
        closed = true;
        creation.stop(closedError());
        onClose.accept(this);
        abort(closedError(), "bulk writer closed");
        int held;
        try {
            // A producer on another thread finishes its current step first (abort freed any slot it waits for).
            held = holdUntil(System.nanoTime() + config.requestTimeout().toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            held = -1;
        }
        if (held < 0) {
            LOG.warn("bulk writer for '{}' closed while a producer thread still writes; it frees the off-heap memory"
                    + " when it returns", schema.tableName());
            return;
        }
        try {
            freeMemory();
        } finally {
            if (held > 0) {
                let();
            }
        }
    }

    /**
     * Releases every off-heap buffer, once; the caller holds the batch ({@link #holder}). Unanswered batches still
     * hold theirs: they are failed first (the writer is closed), and the codec's memory is closed once none is
     * outstanding. Messages the transport still reads are waited for, at most {@link #HAND_BACK_WAIT_MS}; if some
     * are still out then, the last one back closes it.
     */
    private void freeMemory() {
        if (!freed.compareAndSet(false, true)) {
            return;
        }
        writer.abort(closedError(), "bulk writer closed");
        codec.closeRows();
        int out = unfreed.closeWhenFreed(TimeUnit.MILLISECONDS.toNanos(HAND_BACK_WAIT_MS));
        if (out > 0) {
            LOG.warn("bulk writer for '{}' closed while the transport still holds {} of its batches; their memory"
                    + " is freed when it lets go", schema.tableName(), out);
        }
    }

    /**
     * How long closing waits for the transport to let go of batch memory handed to it (a cancelled call's queued
     * writes are dropped on netty's event loop, normally within milliseconds).
     */
    static final long HAND_BACK_WAIT_MS = 5_000;


}
