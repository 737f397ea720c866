package dev.sluice.bulk;

import dev.sluice.write.Compression;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.data.TableSchema;
import dev.sluice.bulk.internal.ArrowSupport;
import dev.sluice.bulk.internal.BulkAccess;
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
import java.util.concurrent.CompletableFuture;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
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
 * <p>Delivery contract. Each {@link #writeNext()} future completes exactly once, with the rows the server wrote
 * for that batch or with a {@link BulkWriteException}. Until a batch is answered the writer keeps it, in the
 * Arrow memory it was built in (the next rows go to fresh vectors; when {@code allocatorMaxAllocation} leaves no
 * room for them, the batch is copied to the heap instead and the vectors refilled). When the stream breaks with a retryable failure (a retryable server error such as rate limiting, a
 * transport failure, a batch with no answer within {@code timeoutPerMessage}, or a stream that ended with
 * batches unanswered), the writer waits the retry policy's backoff, opens a new stream on the next healthy
 * endpoint and resends only the unanswered batches, with their original request ids. The budget is per batch:
 * the policy's attempt count (each stream a batch is queued on is one attempt) and its delivery deadline, counted
 * from {@code writeNext()}. The retry policy is the context's, else the client's ({@code RetryPolicy.defaults()}:
 * attempts until a 2-minute deadline). A resend after an ambiguous outcome (transport failure, timeout) may
 * write a batch twice, which is harmless on tables without {@code append_mode}; for a context with the
 * {@code append_mode=true} hint such failures are not resent. With {@code RetryPolicy.none()} nothing is resent
 * and a batch's memory is freed as soon as it is sent.
 *
 * <p>A batch that fails for good (a non-retryable error, or its budget spent) fails the writer: every
 * unanswered batch fails with that cause, and later {@code writeNext()} calls fail at once; open a new writer.
 * At most {@code maxRequestsInFlight} batches are unanswered; every batch also takes its size from the client's
 * {@code maxInFlightBytes} budget until answered. {@link #close()} releases all off-heap memory on every path.
 * Not thread-safe: one producer thread per writer.
 */
public final class BulkStreamWriter implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BulkStreamWriter.class);
    /** Marks the schema message in the outbox; every stream sends it first. */
    private static final Object SCHEMA = new Object();
    private final TableSchema schema;
    private final BulkWrite.Config config;
    private final BulkTransport transport;
    private final RetryPolicy policy;
    /** Whether a sent batch is kept for a resend until answered (any retry policy but {@code none()}). */
    private final boolean keepCopies;
    private final BufferAllocator allocator;
    private final CompressionCodec codec;
    private final Compression compression;
    private final byte[] schemaMessage;
    private final Semaphore slots;
    private final Object lock = new Object();
    /** The open stream, or null between a failure and the next opening. Guarded by {@link #lock}. */
    private Stream stream;
    /** A reopening waits on the timer (backoff). Guarded by {@link #lock}. */
    private boolean reopenScheduled;
    /** Unanswered batches by request id. Guarded by {@link #lock}. */
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    /** What the open stream has still to send: {@link #SCHEMA} first, then batches. Guarded by {@link #lock}. */
    private final ArrayDeque<Object> outbox = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private boolean halfClosePending;
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong ackedRows = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicInteger reopenings = new AtomicInteger();
    private TableBufferRoot root;
    private long nextId;
    private volatile BulkWriteException failure;
    private volatile boolean completing;
    private volatile boolean closed;
    /** Held by the producer while it changes or sends the batch; off-heap memory is freed only under it. */
    private final ReentrantLock producing = new ReentrantLock();
    /** Guarded by {@link #producing}. */
    private boolean freed;
    private final TableBufferRoot.Guard guard = new TableBufferRoot.Guard() {
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

    /** One unanswered batch. Mutable fields are guarded by the writer's lock. */
    private static final class Pending {
        final long id;
        final int rows;
        final int size;
        final long deadline;
        /** The batch as heap bytes, when the allocator had no room to keep it; else null. */
        final byte[] copy;
        final Runnable budget;
        final CompletableFuture<Integer> future = new CompletableFuture<>();
        /** The batch in Arrow memory, until it is answered or failed (or sent, when nothing is resent); else null. */
        FlightMessages.BatchMessage message;
        int attempts;
        Stream stream;
        long sentAt;
        ScheduledFuture<?> timer;

        Pending(long id, int rows, int size, long deadline, byte[] copy, FlightMessages.BatchMessage message, Runnable budget) {
            this.id = id;
            this.rows = rows;
            this.size = size;
            this.deadline = deadline;
            this.copy = copy;
            this.message = message;
            this.budget = budget;
        }

        /** Frees the batch's Arrow memory, if it holds any; under the writer's lock or once no stream can send it. */
        void releaseMessage() {
            FlightMessages.BatchMessage m = message;
            if (m != null) {
                message = null;
                m.release();
            }
        }
    }

    static {
        BulkAccess.register(BulkStreamWriter::new);
    }

    /** Opens the stream; the client calls this through {@link BulkAccess} ({@code GreptimeDB.bulkStreamWriter}). */
    private BulkStreamWriter(TableSchema schema, BulkWrite.Config config, Compression compression, BulkTransport transport) {
        ArrowSupport.check();
        checkBulkWritable(schema);
        this.schema = schema;
        this.config = config;
        this.transport = transport;
        this.policy = transport.retryPolicy();
        this.keepCopies = policy.maxAttempts() > 1;
        this.schemaMessage = FlightMessages.schemaMessage(schema.tableName(), ArrowTypes.schema(schema));
        this.allocator = transport.allocator().newChildAllocator("bulk-" + schema.tableName(),
                config.allocatorInitReservation(), config.allocatorMaxAllocation());
        this.codec = compression == Compression.Zstd
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD)
                : compression == Compression.Lz4
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.LZ4_FRAME)
                : NoCompressionCodec.INSTANCE;
        this.slots = new Semaphore(config.maxRequestsInFlight(), true);
        this.compression = compression;
        synchronized (lock) {
            open();
        }
        drain();
    }

    /**
     * Refuses a schema the bulk path cannot write, before anything is created or sent.
     *
     * @param schema the table's schema
     * @throws IllegalArgumentException naming the table and column of a JSON or Vector column
     */
    public static void checkBulkWritable(TableSchema schema) {
        for (TableSchema.Column c : schema.columns()) {
            if (c.dataType() == dev.sluice.data.DataType.Json) {
                throw new IllegalArgumentException("table '" + schema.tableName() + "', column '" + c.name()
                        + "': JSON columns cannot be bulk written (the open-source server stores the bytes unconverted);"
                        + " write tables with JSON columns through GreptimeDB.write()");
            }
            if (c.dataType() == dev.sluice.data.DataType.Vector) {
                throw new IllegalArgumentException("table '" + schema.tableName() + "', column '" + c.name()
                        + "': Vector columns cannot be bulk written (Sluice has no tested Arrow mapping for them);"
                        + " write tables with Vector columns through GreptimeDB.write()");
            }
        }
    }

    /** Opens a DoPut call on the next endpoint and queues the schema, then every unanswered batch; holds the lock. */
    private void open() {
        ClientCall<Object, Flight.PutResult> c = transport.channels().get().newCall(FlightMessages.DO_PUT,
                compression == Compression.Gzip ? transport.callOptions().withCompression("gzip") : transport.callOptions());
        Stream s = new Stream(c);
        stream = s;
        c.start(s, new Metadata());
        c.request(Integer.MAX_VALUE);
        outbox.clear();
        outbox.add(SCHEMA);
        for (Pending p : pending.values()) {
            queue(p, s);
        }
    }

    /** Puts a batch in line on a stream, counting the attempt and starting its answer deadline; holds the lock. */
    private void queue(Pending p, Stream s) {
        p.attempts++;
        p.stream = s;
        if (p.timer != null) {
            p.timer.cancel(false);
        }
        long wait = Math.min(TimeUnit.MILLISECONDS.toNanos(config.timeoutPerMessage().toMillis()), p.deadline - System.nanoTime());
        try {
            p.timer = transport.timer().schedule(() -> timedOut(p, s), Math.max(0, wait), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            p.timer = null; // the client is shutting down; its shutdown closes this writer
        }
        outbox.add(p);
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
            root = new TableBufferRoot(schema, allocator, Math.max(1, columnBufferSize), config.allocatorMaxAllocation(),
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
     * Blocks while {@code maxRequestsInFlight} batches are unanswered (at most {@code timeoutPerMessage}, or
     * not at all with {@code WhenFull.FailFast}) and while the client's byte budget is used up (as the client's
     * limit policy says).
     *
     * @return completes with the rows the server wrote for this batch, or with a {@link BulkWriteException}
     */
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
        if (f != null) {
            root.reset();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(f);
        }
        if (!acquireSlot()) {
            root.reset();
            failed.incrementAndGet();
            String why = "no answer slot freed: " + config.maxRequestsInFlight() + " batches of '" + schema.tableName()
                    + "' unanswered" + (config.whenFull() == dev.sluice.write.WhenFull.Block ? " for " + config.timeoutPerMessage().toMillis()
                    + " ms" : "");
            return CompletableFuture.failedFuture(new BulkWriteException(why,
                    GrpcErrors.local(Status.Code.RESOURCE_EXHAUSTED, why, true, List.of(schema.tableName())), null));
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
            ArrowRecordBatch batch = new VectorUnloader(root.arrowRoot(), true, codec, true).getRecordBatch();
            FlightMessages.BatchMessage m;
            try {
                m = FlightMessages.batchMessage(batch, id);
            } catch (RuntimeException e) {
                batch.close();
                throw e;
            }
            try {
                if (root.renew()) {
                    // The batch holds the vectors' memory now (the next rows go to fresh buffers): sent from it, and
                    // kept until answered so that a broken stream can resend it without a copy.
                    message = m;
                } else {
                    // The allocator's cap leaves no room for fresh buffers: a heap copy, the same vectors refilled.
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
            budget = transport.budget().acquire(size);
        } catch (RuntimeException e) {
            if (message != null) {
                message.release();
            }
            slots.release();
            failed.incrementAndGet();
            return CompletableFuture.failedFuture(new BulkWriteException("batch " + id + " of '" + schema.tableName()
                    + "' (" + size + " bytes) got no room in the client's memory budget: " + e.getMessage(), null, e));
        }
        Pending p = new Pending(id, rows, size, System.nanoTime() + policy.deliveryTimeout().toNanos(), copy, message, budget);
        BulkWriteException refused;
        synchronized (lock) {
            refused = closed ? closedError() : failure;
            if (refused == null) {
                pending.put(id, p);
                Stream s = stream;
                if (s != null && !s.cancelled && !s.halfClosed) {
                    queue(p, s);
                } else if (!reopenScheduled) {
                    open();
                }
                // else: queued by the reopening
            }
        }
        if (refused != null) {
            settle(List.of(p), refused);
        }
        drain();
        return p.future;
    }

    private boolean acquireSlot() {
        if (config.whenFull() == dev.sluice.write.WhenFull.FailFast) {
            return slots.tryAcquire();
        }
        try {
            return slots.tryAcquire(config.timeoutPerMessage().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sends what the open stream can take now, then half-closes it when completing and nothing is left. */
    private void drain() {
        synchronized (lock) {
            Stream s = stream;
            if (s == null || s.cancelled) {
                return;
            }
            while (!outbox.isEmpty() && !s.halfClosed && s.call.isReady()) {
                Object o = outbox.poll();
                if (o == SCHEMA) {
                    s.call.sendMessage(schemaMessage);
                    continue;
                }
                Pending p = (Pending) o;
                if (pending.get(p.id) != p || p.stream != s) {
                    continue; // answered or failed meanwhile
                }
                p.sentAt = System.nanoTime();
                try {
                    s.call.sendMessage(p.message != null ? p.message : p.copy);
                } finally {
                    // gRPC drains a message inside sendMessage. Without resends its memory is not needed again (one
                    // gRPC refused is freed all the same).
                    if (!keepCopies) {
                        p.releaseMessage();
                    }
                }
            }
            if (halfClosePending && outbox.isEmpty() && !s.halfClosed) {
                s.halfClosed = true;
                s.call.halfClose();
            }
        }
    }

    /** A batch's answer deadline passed on the stream it was queued on: that stream is presumed broken. */
    private void timedOut(Pending p, Stream s) {
        synchronized (lock) {
            if (pending.get(p.id) != p || p.stream != s || stream != s || s.cancelled) {
                return; // answered, or a timer of an earlier stream
            }
            s.cancelled = true;
            s.timedOut = p;
        }
        s.call.cancel("batch " + p.id + " had no answer in time", null);
    }

    /** An answer: completes its batch, whichever stream carried it (an answered batch is committed). */
    private void answered(FlightMessages.Answer a) {
        if (a.requestId() == 0) {
            return; // the server's greeting
        }
        Pending p;
        synchronized (lock) {
            p = pending.remove(a.requestId());
            if (p == null) {
                return;
            }
            if (p.timer != null) {
                p.timer.cancel(false);
            }
            p.releaseMessage(); // under the lock, so the allocator is never closed while this memory is held
        }
        p.budget.run();
        slots.release();
        acked.incrementAndGet();
        ackedRows.addAndGet(a.affectedRows());
        transport.events().acked(schema.tableName(), a.affectedRows(), p.size, System.nanoTime() - p.sentAt);
        p.future.complete((int) a.affectedRows());
        completeIfDone();
    }

    /** A stream ended: finished, retried on a new stream after the backoff, or failed for good. */
    private void streamClosed(Stream s, Status status, Metadata trailers) {
        List<Pending> lost = List.of();
        BulkWriteException error = null;
        synchronized (lock) {
            if (stream != s) {
                return;
            }
            stream = null;
            if (pending.isEmpty()) {
                if (!status.isOk() && !closed && !halfClosePending) {
                    LOG.debug("idle bulk stream of '{}' ended: {}", schema.tableName(), status);
                }
            } else {
                Err err;
                boolean ambiguous;
                Throwable cause = null;
                if (s.timedOut != null) {
                    err = GrpcErrors.local(Status.Code.DEADLINE_EXCEEDED, "batch " + s.timedOut.id + " had no answer within "
                            + config.timeoutPerMessage().toMillis() + " ms", true, List.of(schema.tableName()));
                    ambiguous = true;
                } else if (status.isOk()) {
                    err = GrpcErrors.local(Status.Code.UNAVAILABLE, "the stream ended with " + pending.size()
                            + " batches unanswered (the server drops answers beyond 32 unsent)", true, List.of(schema.tableName()));
                    ambiguous = true;
                } else {
                    cause = status.asRuntimeException(trailers);
                    err = GrpcErrors.fromThrowable(cause, List.of(schema.tableName()));
                    // A status from the server itself ends the stream at the failed batch: later ones were not read.
                    ambiguous = err.code() < 0;
                }
                long wait = -1;
                String budgetSpent = null;
                if (closed) {
                    budgetSpent = "the writer was closed";
                } else if (transport.stopped().getAsBoolean()) {
                    budgetSpent = "the client is shutting down";
                } else if (!err.retryable()) {
                    budgetSpent = null;
                } else if (!keepCopies) {
                    budgetSpent = "the retry policy allows no resend";
                } else if (ambiguous && transport.appendMode()) {
                    budgetSpent = "append-mode tables are not resent after an ambiguous failure";
                } else {
                    long now = System.nanoTime();
                    int attempts = Integer.MAX_VALUE;
                    long deadline = Long.MAX_VALUE;
                    for (Pending p : pending.values()) {
                        attempts = Math.min(attempts, p.attempts);
                        deadline = Math.min(deadline, p.deadline);
                    }
                    Pending oldest = pending.firstEntry().getValue();
                    wait = policy.backoff(attempts + 1).toNanos();
                    if (oldest.attempts >= policy.maxAttempts()) {
                        budgetSpent = "batch " + oldest.id + " used its " + policy.maxAttempts() + " attempts";
                    } else if (now + wait >= deadline) {
                        budgetSpent = "the delivery deadline of " + policy.deliveryTimeout().toMillis() + " ms passed";
                    }
                }
                if (err.retryable() && budgetSpent == null) {
                    reopenScheduled = true;
                    try {
                        transport.timer().schedule(this::reopen, wait, TimeUnit.NANOSECONDS);
                        reopenings.incrementAndGet();
                        transport.events().replayed();
                        LOG.info("bulk stream of '{}' broke ({}); resending {} unanswered batches on a new stream",
                                schema.tableName(), err.message(), pending.size());
                        return;
                    } catch (RejectedExecutionException e) {
                        reopenScheduled = false;
                        budgetSpent = "the client was shut down";
                    }
                }
                error = new BulkWriteException("bulk stream of '" + schema.tableName() + "' failed: " + err.message()
                        + (budgetSpent != null && err.retryable() ? " (not resent: " + budgetSpent + ")" : ""), err, cause);
                lost = takeAll(error);
            }
        }
        if (error != null) {
            LOG.warn("{}", error.getMessage());
            settle(lost, error);
        }
        completeIfDone();
    }

    private void reopen() {
        synchronized (lock) {
            reopenScheduled = false;
            if (closed || failure != null || pending.isEmpty() || stream != null) {
                return;
            }
            open();
        }
        drain();
        completeIfDone();
    }

    /** Fails the writer: takes every unanswered batch and drops the outbox; holds the lock. */
    private List<Pending> takeAll(BulkWriteException e) {
        if (failure == null) {
            failure = e;
        }
        List<Pending> all = new ArrayList<>(pending.values());
        pending.clear();
        outbox.clear();
        for (Pending p : all) {
            if (p.timer != null) {
                p.timer.cancel(false);
            }
            p.releaseMessage();
        }
        return all;
    }

    /** Completes failed batches: gives back their room and slot, then fails their futures on the callback executor. */
    private void settle(List<Pending> batches, BulkWriteException e) {
        for (Pending p : batches) {
            p.releaseMessage();
            p.budget.run();
            failed.incrementAndGet();
            slots.release();
            transport.events().failed(e.err());
            try {
                transport.callbackExecutor().execute(() -> p.future.completeExceptionally(e));
            } catch (RejectedExecutionException rejected) {
                p.future.completeExceptionally(e);
            }
        }
    }

    /** Finishes {@link #completed()} once it was asked for and nothing is unanswered or open. */
    private void completeIfDone() {
        synchronized (lock) {
            if (!halfClosePending || !pending.isEmpty() || reopenScheduled) {
                return;
            }
            if (stream != null && failure == null && !closed) {
                return; // the half-closed stream's end completes it
            }
        }
        finished.complete(null);
    }

    private BulkWriteException closedError() {
        return new BulkWriteException("the bulk writer for '" + schema.tableName() + "' was closed before its"
                + " batches were answered", null, null);
    }

    /** Receives the answers of one DoPut call; runs on the callback executor. */
    private final class Stream extends ClientCall.Listener<Flight.PutResult> {
        final ClientCall<Object, Flight.PutResult> call;
        /** Guarded by the writer's lock. */
        boolean halfClosed;
        /** Guarded by the writer's lock. */
        boolean cancelled;
        /** The batch whose deadline cancelled this stream; guarded by the writer's lock. */
        Pending timedOut;

        Stream(ClientCall<Object, Flight.PutResult> call) {
            this.call = call;
        }

        @Override
        public void onMessage(Flight.PutResult message) {
            answered(FlightMessages.answer(message));
        }

        @Override
        public void onReady() {
            drain();
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            streamClosed(this, status, trailers);
        }
    }

    /**
     * Ends the stream and waits for every outstanding answer, resends included: at most the later of
     * {@code timeoutPerMessage} and the last unanswered batch's delivery deadline, plus one second.
     *
     * @return the rows the server acknowledged over the writer's life
     * @throws BulkWriteException when any batch failed or the stream ended in error
     */
    public long completed() {
        if (closed) {
            throw new IllegalStateException("the bulk writer for '" + schema.tableName() + "' is closed");
        }
        long waitNanos = TimeUnit.MILLISECONDS.toNanos(config.timeoutPerMessage().toMillis());
        if (!completing) {
            completing = true;
            synchronized (lock) {
                halfClosePending = true;
                long now = System.nanoTime();
                for (Pending p : pending.values()) {
                    waitNanos = Math.max(waitNanos, p.deadline - now);
                }
            }
            drain();
            completeIfDone();
        }
        waitNanos += TimeUnit.SECONDS.toNanos(1);
        try {
            finished.get(waitNanos, TimeUnit.NANOSECONDS);
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

    /** Fails every unanswered batch with {@code e} and cancels the stream. */
    private void abort(BulkWriteException e, String why) {
        List<Pending> lost;
        Stream s;
        synchronized (lock) {
            lost = takeAll(e);
            s = stream;
            if (s != null) {
                s.cancelled = true;
            }
        }
        settle(lost, e);
        if (s != null) {
            s.call.cancel(why, null);
        }
        finished.complete(null);
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
     * Counts stream reopenings after retryable failures.
     *
     * @return reopenings
     */
    public int replays() {
        return reopenings.get();
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
     * Counts batches sent (or waiting to be resent) and not yet answered.
     *
     * @return unanswered batches
     */
    public int inFlight() {
        synchronized (lock) {
            return pending.size();
        }
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
        abort(closedError(), "bulk writer closed");
        boolean mine;
        try {
            // A producer on another thread finishes its current step first (abort freed any slot it waits for).
            mine = producing.tryLock(config.timeoutPerMessage().toMillis(), TimeUnit.MILLISECONDS);
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
     * are failed first (the writer is closed), so that the allocator closes with nothing outstanding.
     */
    private void freeMemory() {
        if (freed) {
            return;
        }
        freed = true;
        BulkWriteException e = closedError();
        List<Pending> lost;
        synchronized (lock) {
            lost = takeAll(e);
        }
        settle(lost, e);
        if (root != null) {
            root.close();
        }
        allocator.close();
    }
}
