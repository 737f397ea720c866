package dev.sluice.kafka.connect.internal;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.RecordRejectedException;
import dev.sluice.sink.internal.Backpressure;
import dev.sluice.sink.internal.OrderedDeletes;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.write.Err;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery logic of one sink task, at least once.
 *
 * <p>Every record handed to {@link #put} is tracked in its partition's queue, in offset order, until it is
 * settled: stored (its batch acknowledged), reported to the dead-letter queue (and the report acknowledged), or
 * skipped (a tombstone with deletes off). {@link #preCommit} returns, per partition, the offset after the longest
 * settled prefix, so no offset is committed before its record and every earlier one is safe.
 *
 * <p>A batch the server refused for good is split in halves and written directly until each bad record is
 * singled out ({@link RefusedRowIsolator}); the good ones are stored and each bad one goes to the dead-letter
 * queue, or fails the task when there is none. Tombstones become deletes held per table ({@link OrderedDeletes}),
 * across puts, and sent after the writes before them when they are due as the writer's batches are: the oldest
 * was held {@code batch.flush.interval.ms}, or a table holds {@code batch.max.rows} of them (checked at the end of
 * each put); and before the offsets are committed ({@link #preCommit}), partitions close or a rewind. A write of a
 * row with a delete held waits with it, and a tombstone of a row whose write waits sends what is held first, so
 * each row ends as its records applied in offset order would leave it, at a flush and a delete request per table
 * and send. A held tombstone is unsettled, so no offset from it on is committed before its delete is acknowledged.
 *
 * <p>A retryable failure that outlived the client's retries (or a buffer that stayed full) rewinds the partitions
 * concerned to their first unsettled record and throws {@link RetriableException}: Connect pauses, redelivers
 * the same batch (whose records of rewound partitions are skipped, since the consumer re-reads them),
 * and re-polls from the rewound offsets. Redelivered rows overwrite their earlier copies on tables without
 * append mode.
 *
 * <p>A row defining a column differently (type, or tag versus field) from a row of the same table still
 * unanswered waits until the writer is drained, so on a new table or column the earliest record decides the
 * column's type, whatever the order in which the writer's batches reach the server.
 *
 * <p>Used from the task's thread only; completed batch futures are read from that thread when it settles.
 */
public final class SinkSession {
    private static final Logger LOG = LoggerFactory.getLogger(SinkSession.class);

    private final SluiceClient client;
    private final RefusedRowIsolator<Pending> isolator;
    private final OrderedDeletes<Pending> heldDeletes;
    private final RecordMapper mapper;
    private final ErrantRecordReporter reporter;
    private final SinkTaskContext context;
    private final boolean deletes;
    private final Duration flushTimeout;
    private final long redeliveryBackoffMs;
    private final long dlqMaxBytes;
    private final boolean dlqContextHeaders;
    private final Map<TopicPartition, Partition> partitions = new HashMap<>();
    /** Batches handed to the writer and not settled, oldest first (futures compare by identity). */
    private final Map<CompletableFuture<Void>, List<Pending>> batches = new LinkedHashMap<>();
    /** Per table: the column definitions of the rows handed to the writer since it was last drained. */
    private final Map<String, Map<String, TableSchema.Column>> unansweredColumns = new HashMap<>();
    /** Row schemas already checked against {@link #unansweredColumns} (identity: the mapper caches them). */
    private final Set<TableSchema> admittedSchemas = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * Bulk path only, per table: the columns this sink session has written through the regular path, which creates
     * the table and adds columns (the bulk path does neither, and the server silently ignores batch columns a
     * table lacks: GreptimeDB's src/operator/src/bulk_insert.rs).
     */
    private final Map<String, Map<String, TableSchema.Column>> regularColumns = new HashMap<>();
    /** Bulk path only: row schemas whose every column is in {@link #regularColumns} (identity: cached by the mapper). */
    private final Set<TableSchema> bulkReady = Collections.newSetFromMap(new IdentityHashMap<>());
    private Set<SinkRecord> skipOnRedelivery = Collections.emptySet();
    private boolean retryNeeded;
    /** The writer's buffer stayed full during this put: its partitions are rewound. */
    private boolean bufferFull;
    private ConnectException fatal;
    private final Counters counters = new Counters();

    /** Running totals, readable from any thread (metrics). */
    public static final class Counters {
        /** Records handed to put. */
        public final LongAdder received = new LongAdder();
        /** Records whose rows GreptimeDB acknowledged (inserts and deletes). */
        public final LongAdder stored = new LongAdder();
        /** Records sent to the dead-letter queue. */
        public final LongAdder reported = new LongAdder();
        /** Tombstones skipped because deletes are off. */
        public final LongAdder skippedTombstones = new LongAdder();
        /** Rewinds after retryable failures. */
        public final LongAdder rewinds = new LongAdder();
        /** Batches split to single out bad records. */
        public final LongAdder isolations = new LongAdder();
    }

    private enum State { WRITING, STORED, REPORTING, RETRY, DISCARDED }

    /** A record's row (for a tombstone, its key) as the client's direct writes take it. */
    private static final RefusedRowIsolator.Rows<Pending> ROWS = new RefusedRowIsolator.Rows<>() {
        @Override
        public TableSchema schema(Pending p) {
            return p.row.schema();
        }

        @Override
        public void append(Pending p, Table table) {
            table.addRow(p.row.values());
        }
    };

    /** One record in flight. */
    private static final class Pending {
        final SinkRecord record;
        /** The record's row; for a tombstone, the key of the row to delete. */
        MappedRow row;
        State state = State.WRITING;
        Future<Void> report;

        Pending(SinkRecord record, MappedRow row) {
            this.record = record;
            this.row = row;
        }
    }

    /** The records of one partition not yet settled, oldest first, and the offset safe to commit. */
    private static final class Partition {
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        long committable = -1;
    }

    /**
     * Creates a session.
     *
     * @param client the Sluice client adapter
     * @param mapper record to row mapping
     * @param reporter the dead-letter reporter, or null when the connector has none
     * @param context the task context (rewinds and backoff)
     * @param deletes whether tombstones delete rows
     * @param flushTimeout the longest wait for acknowledgements in close
     * @param redeliveryBackoffMs Connect's pause before redelivering
     * @param dlqMaxBytes the largest record the dead-letter queue's producer takes
     * @param dlqContextHeaders whether Connect adds its error context headers to dead-lettered records
     */
    public SinkSession(SluiceClient client, RecordMapper mapper, ErrantRecordReporter reporter, SinkTaskContext context,
                       boolean deletes, Duration flushTimeout, long redeliveryBackoffMs, long dlqMaxBytes,
                       boolean dlqContextHeaders) {
        this.dlqMaxBytes = dlqMaxBytes;
        this.dlqContextHeaders = dlqContextHeaders;
        this.client = client;
        this.mapper = mapper;
        this.reporter = reporter;
        this.context = context;
        this.deletes = deletes;
        this.flushTimeout = flushTimeout;
        this.redeliveryBackoffMs = redeliveryBackoffMs;
        this.isolator = new RefusedRowIsolator<>(client.clients(), ROWS);
        // Due by number or age as the batching writer's batches are; sent too before a dead-lettered record, a
        // commit, a rewind and closing partitions.
        this.heldDeletes = new OrderedDeletes<>(client.clients(), ROWS);
    }

    /** @return the running totals */
    public Counters counters() {
        return counters;
    }

    /** @return records handed to put and not settled yet */
    public long unsettled() {
        long n = 0;
        for (Partition p : partitions.values()) {
            n += p.queue.size();
        }
        return n;
    }

    private static TopicPartition tp(SinkRecord r) {
        return new TopicPartition(r.originalTopic(), r.originalKafkaPartition());
    }

    private Partition partition(TopicPartition tp) {
        return partitions.computeIfAbsent(tp, k -> new Partition());
    }

    /**
     * Takes partitions newly assigned to the task.
     *
     * @param assigned the partitions
     */
    public void open(Collection<TopicPartition> assigned) {
        for (TopicPartition tp : assigned) {
            partition(tp);
        }
    }

    /**
     * Hands records to the writer.
     *
     * @param records the records, in offset order per partition
     * @throws RetriableException after a rewind: Connect redelivers later
     * @throws ConnectException when a record can never be written and there is no dead-letter queue
     */
    public void put(Collection<SinkRecord> records) {
        throwIfFatal();
        settle();
        throwIfFatal();
        if (retryNeeded) {
            rewind(records, false);
        }
        Set<SinkRecord> skip = skipOnRedelivery;
        skipOnRedelivery = Collections.emptySet();
        bufferFull = false;
        for (SinkRecord r : records) {
            if (bufferFull) {
                break;
            }
            if (!skip.isEmpty() && skip.contains(r)) {
                continue;
            }
            counters.received.increment();
            Partition p = partition(tp(r));
            if (r.value() == null) {
                tombstone(p, r);
                continue;
            }
            MappedRow row;
            try {
                row = mapper.map(r);
            } catch (MappingException e) {
                Pending bad = new Pending(r, null);
                p.queue.add(bad);
                rejectInOrder(bad, e.table(), e.column(), e.getMessage(), e);
                continue;
            }
            Pending pe = new Pending(r, row);
            p.queue.add(pe);
            if (!admit(row.schema())) {
                pe.state = State.RETRY;
                retryNeeded = true;
                continue;
            }
            boolean waits;
            try {
                waits = heldDeletes.holds(pe); // its row has a delete held: the write lands after it
            } catch (InvalidDataException e) {
                rejectInOrder(pe, row.schema().tableName(), e.column(), e.reason(), e);
                continue;
            }
            if (!waits) {
                handWrite(pe);
            }
        }
        if (bufferFull) {
            rewind(records, true);
        } else if (heldDeletes.due()) {
            sendHeld();
        }
        throwIfFatal();
        advanceAll();
    }

    /**
     * Hands a record's row to the writer; on the bulk path, a row bringing a table or column the session has not
     * written goes through the regular path instead. A buffer that stayed full sets {@link #bufferFull}.
     */
    private void handWrite(Pending pe) {
        MappedRow row = pe.row;
        if (client.bulk() && !bulkReady(row.schema())) {
            try {
                client.checkPath(row.schema());
                client.checkExisting(row.schema());
            } catch (MappingException e) {
                rejectInOrder(pe, e.table(), e.column(), e.getMessage(), e);
                return;
            }
            writeThroughRegularPath(pe);
            throwIfFatal();
            return;
        }
        CompletableFuture<Void> f;
        try {
            f = client.write(row);
        } catch (MappingException e) {
            rejectInOrder(pe, e.table(), e.column(), e.getMessage(), e);
            return;
        } catch (Backpressure.BufferStayedFull e) {
            LOG.warn("GreptimeDB sink: {}", e.getMessage());
            pe.state = State.RETRY;
            bufferFull = true;
            return;
        }
        batches.computeIfAbsent(f, k -> new ArrayList<>()).add(pe);
    }

    /**
     * Sends the held deletes once the writer answered every write handed to it before them, settles them, then hands
     * the writes that waited for them to the writer, in offset order.
     */
    private void sendHeld() {
        if (heldDeletes.isEmpty()) {
            return;
        }
        OrderedDeletes.Sent<Pending> sent = heldDeletes.send(client.flush(flushTimeout), flushTimeout);
        settleDirect(sent.deletes(), "delete");
        throwIfFatal();
        for (Pending pe : sent.writes()) {
            if (bufferFull) {
                pe.state = State.RETRY; // redelivered with the rest of this put's partitions
            } else {
                handWrite(pe);
            }
        }
    }

    /**
     * Keeps the earliest record in charge of a column's type. Rows of one table with different column types
     * land in different batches of the writer, which may reach GreptimeDB in any order; on a table or column
     * that does not exist yet, the first to arrive would decide its type. So when a row defines a column
     * differently (type, or tag versus field) from a row still unanswered, the writer is drained first: the
     * earlier rows reach the server first, and the later row is then stored or refused against what they
     * created (refused rows go to the dead-letter queue). Conflicting rows are rare (bad records, or a JSON
     * field whose inferred type changes); every other row passes without waiting.
     *
     * @param schema the row's schema
     * @return false when the writer could not be drained within the flush timeout (the row is redelivered)
     */
    private boolean admit(TableSchema schema) {
        if (admittedSchemas.contains(schema)) {
            return true;
        }
        Map<String, TableSchema.Column> columns = unansweredColumns.get(schema.tableName());
        if (columns != null && conflicts(columns, schema)) {
            if (!client.flush(flushTimeout)) {
                LOG.info("GreptimeDB sink: writes to table {} were not answered within {} ms before a row defining a"
                        + " column differently; the row will be redelivered", schema.tableName(), flushTimeout.toMillis());
                return false;
            }
            settle(); // everything is answered: forgets the unanswered columns
        }
        Map<String, TableSchema.Column> known = unansweredColumns.computeIfAbsent(schema.tableName(),
                t -> new HashMap<>());
        for (TableSchema.Column c : schema.columns()) {
            known.putIfAbsent(c.name(), c);
        }
        admittedSchemas.add(schema);
        return true;
    }

    private boolean bulkReady(TableSchema schema) {
        if (bulkReady.contains(schema)) {
            return true;
        }
        Map<String, TableSchema.Column> known = regularColumns.get(schema.tableName());
        if (known == null) {
            return false;
        }
        for (TableSchema.Column c : schema.columns()) {
            if (!c.equals(known.get(c.name()))) {
                return false;
            }
        }
        bulkReady.add(schema);
        return true;
    }

    /**
     * Bulk path: writes a row that brings a table or column this sink session has not written yet through the
     * regular path (or a column defined differently, which the server then refuses for the record alone), which
     * creates the table or adds the column, instead of letting the bulk path drop the
     * column's value silently. The writer is drained first, so the row reaches the server after the records
     * before it. Rows of that shape then travel in bulk. Rare: once per new table or column per task.
     */
    private void writeThroughRegularPath(Pending pe) {
        TableSchema schema = pe.row.schema();
        if (!client.flush(flushTimeout)) {
            LOG.info("GreptimeDB sink: writes were not answered within {} ms before a row bringing new columns to"
                    + " table {}; the row will be redelivered", flushTimeout.toMillis(), schema.tableName());
            pe.state = State.RETRY;
            retryNeeded = true;
            return;
        }
        settle();
        RefusedRowIsolator.Report<Pending> report = isolator.isolate(List.of(pe), WriteOp.Insert);
        settleDirect(report, "row");
        if (pe.state == State.STORED) {
            Map<String, TableSchema.Column> known = regularColumns.computeIfAbsent(schema.tableName(),
                    t -> new HashMap<>());
            for (TableSchema.Column c : schema.columns()) {
                known.put(c.name(), c);
            }
            bulkReady.add(schema);
        }
    }

    private static boolean conflicts(Map<String, TableSchema.Column> columns, TableSchema schema) {
        for (TableSchema.Column c : schema.columns()) {
            TableSchema.Column earlier = columns.get(c.name());
            if (earlier != null && !earlier.equals(c)) {
                return true;
            }
        }
        return false;
    }

    private void tombstone(Partition p, SinkRecord r) {
        Pending pe = new Pending(r, null);
        p.queue.add(pe);
        if (!deletes) {
            counters.skippedTombstones.increment();
            pe.state = State.STORED;
            return;
        }
        MappedRow key;
        try {
            key = mapper.mapDelete(r);
        } catch (MappingException e) {
            rejectInOrder(pe, e.table(), e.column(), "tombstone: " + e.getMessage(), e);
            return;
        }
        pe.row = key;
        try {
            if (!heldDeletes.hold(pe)) {
                sendHeld(); // a write of its row waits for the held deletes, and this delete must land after that write
                heldDeletes.hold(pe);
            }
        } catch (InvalidDataException e) {
            rejectInOrder(pe, key.schema().tableName(), e.column(), "tombstone: " + e.reason(), e);
        }
    }

    /**
     * Settles the batches whose futures are done. It reads the futures themselves rather than a queue their
     * completion callbacks fill: the writer's flush returns once every future is done, but a callback registered
     * on a future may still be running on the completing thread then, so a queue could miss a batch that a flush
     * has just seen answered (and preCommit would report an offset short of what is stored).
     */
    private void settle() {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (CompletableFuture<Void> f : batches.keySet()) {
            if (f.isDone()) {
                done.add(f);
            }
        }
        for (CompletableFuture<Void> f : done) {
            List<Pending> members = batches.remove(f);
            members.removeIf(m -> m.state != State.WRITING);
            if (members.isEmpty()) {
                continue;
            }
            Throwable failure = null;
            try {
                f.join();
            } catch (RuntimeException e) {
                failure = e;
            }
            if (failure == null) {
                for (Pending m : members) {
                    m.state = State.STORED;
                }
                counters.stored.add(members.size());
                continue;
            }
            String table = members.get(0).row.schema().tableName();
            Err o = SinkClients.errOf(failure, table);
            if (client.misconfigured(o)) {
                misconfigured(members, SinkClients.describe(o));
                continue;
            }
            if (client.passing(o)) {
                LOG.warn("GreptimeDB sink: a batch of {} rows for table {} failed after the client's retries: {}",
                        members.size(), table, SinkClients.describe(o));
                markRetry(members);
            } else {
                counters.isolations.increment();
                LOG.warn("GreptimeDB sink: GreptimeDB refused a batch of {} rows for table {} ({}); writing its parts"
                        + " separately to find the bad records", members.size(), table, SinkClients.describe(o));
                settleDirect(isolator.isolate(members, WriteOp.Insert), "row");
            }
        }
        if (batches.isEmpty()) {
            // Nothing unanswered: the next row of any table may define its columns afresh.
            unansweredColumns.clear();
            admittedSchemas.clear();
        }
    }

    /**
     * Fails the task for a failure no record causes (credentials, rights, a missing database): the records stay
     * unsettled, so their offsets are never committed, and none goes to the dead-letter queue. The next put
     * throws a {@link ConnectException}: Connect stops the task until the settings are fixed and it is restarted.
     */
    private void misconfigured(List<Pending> members, String message) {
        for (Pending m : members) {
            m.state = State.RETRY; // unsettled: holds its partition's committable offset back
        }
        if (fatal == null) {
            String table = members.isEmpty() || members.get(0).row == null ? "?" : members.get(0).row.schema().tableName();
            fatal = new ConnectException("GreptimeDB refused the task's writes (table " + table + ") for a reason no"
                    + " record causes: " + message + ". Check greptimedb.database, username, password and"
                    + " table.hints (and, with auto_create_table=false, that the tables exist); no record was dead-lettered and the offsets of the unwritten records are not"
                    + " committed");
            LOG.error("GreptimeDB sink: {}", fatal.getMessage());
        }
    }

    private void markRetry(List<Pending> members) {
        for (Pending m : members) {
            m.state = State.RETRY;
        }
        retryNeeded = true;
    }

    /**
     * Settles the records of direct writes: stored, refused (to the dead-letter queue, or the task fails), or not
     * written (the task fails when the settings are at fault, else they are redelivered).
     *
     * @param report what the writes found, or null when nothing was written
     * @param what "row" or "delete", for the refusal's message
     */
    private void settleDirect(RefusedRowIsolator.Report<Pending> report, String what) {
        if (report == null) {
            return;
        }
        for (Pending m : report.stored()) {
            m.state = State.STORED;
        }
        counters.stored.add(report.stored().size());
        if (!report.notWritten().isEmpty()) {
            Err err = report.stoppedBy();
            if (client.misconfigured(err)) {
                misconfigured(report.notWritten(), SinkClients.describe(err));
            } else {
                markRetry(report.notWritten());
            }
        }
        for (RefusedRowIsolator.Refused<Pending> r : report.refused()) {
            reject(r.row(), r.row().row.schema().tableName(), r.column().orElse(null), "GreptimeDB refused the " + what
                    + ": " + SinkClients.describe(r.err()), null);
        }
    }

    /**
     * Rejects a record found bad while handing records over, after the deletes held from earlier records are sent
     * and settled: the dead-letter queue gets a partition's records in offset order.
     */
    private void rejectInOrder(Pending pe, String table, String column, String reason, Throwable cause) {
        sendHeld();
        reject(pe, table, column, reason, cause);
    }

    /** Sends a record that can never be written to the dead-letter queue, or fails the task. */
    private void reject(Pending pe, String table, String column, String reason, Throwable cause) {
        SinkRecord r = pe.record;
        RecordRejectedException ex = new RecordRejectedException(r.originalTopic(), r.originalKafkaPartition(),
                r.originalKafkaOffset(), table, column, reason, cause);
        if (reporter == null) {
            fatal = new ConnectException(ex.getMessage() + " (no dead-letter queue is configured: set"
                    + " errors.tolerance=all and errors.deadletterqueue.topic.name to route such records there)", ex);
            throw fatal;
        }
        long size = RecordSize.estimate(r, dlqContextHeaders);
        if (size > dlqMaxBytes) {
            // Kafka Connect reports a send its dead-letter producer refused (a record over max.request.size) to the
            // task as a success: dead-lettering this record would commit its offset with the record nowhere.
            fatal = new ConnectException(ex.getMessage() + " (not sent to the dead-letter queue: the record is about "
                    + size + " bytes, over the " + dlqMaxBytes + " bytes its producer takes, and Kafka Connect would"
                    + " drop it while reporting success. Raise the producer's max.request.size (worker"
                    + " producer.max.request.size or connector producer.override.max.request.size) and"
                    + " dlq.max.record.bytes to match, or remove the record; offsets from it on are not committed)", ex);
            LOG.error("GreptimeDB sink: {}", fatal.getMessage());
            throw fatal;
        }
        LOG.warn("GreptimeDB sink: to the dead-letter queue: {}", ex.getMessage());
        pe.report = reporter.report(r, ex);
        pe.state = State.REPORTING;
        counters.reported.increment();
    }

    private void throwIfFatal() {
        if (fatal != null) {
            throw fatal;
        }
    }

    /** Moves each partition's committable offset past its settled prefix. */
    private void advanceAll() {
        for (Partition p : partitions.values()) {
            while (!p.queue.isEmpty()) {
                Pending h = p.queue.peek();
                if (h.state == State.REPORTING) {
                    if (!h.report.isDone()) {
                        break;
                    }
                    try {
                        h.report.get();
                    } catch (ExecutionException | RuntimeException e) {
                        fatal = new ConnectException("the dead-letter queue did not take record topic="
                                + h.record.originalTopic() + " partition=" + h.record.originalKafkaPartition()
                                + " offset=" + h.record.originalKafkaOffset(), e);
                        throw fatal;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                } else if (h.state != State.STORED) {
                    break;
                }
                p.committable = h.record.originalKafkaOffset() + 1;
                p.queue.poll();
            }
        }
    }

    /**
     * Rewinds the partitions that need a resend to their first unsettled record and throws; returns quietly when
     * none of them is still assigned.
     *
     * @param records the records of the current put
     * @param thisPut true to rewind every partition of the current put too (its records were not all taken)
     */
    private void rewind(Collection<SinkRecord> records, boolean thisPut) {
        // Held deletes of partitions that stay are not redelivered: they are sent (or marked for a resend) first.
        sendHeld();
        advanceAll();
        Map<TopicPartition, Long> targets = new HashMap<>();
        for (Map.Entry<TopicPartition, Partition> e : partitions.entrySet()) {
            for (Pending pe : e.getValue().queue) {
                if (pe.state == State.RETRY) {
                    targets.put(e.getKey(), e.getValue().queue.peek().record.originalKafkaOffset());
                    break;
                }
            }
        }
        if (thisPut) {
            for (SinkRecord r : records) {
                TopicPartition tp = tp(r);
                Partition p = partition(tp);
                long first = p.queue.isEmpty() ? r.originalKafkaOffset() : p.queue.peek().record.originalKafkaOffset();
                targets.merge(tp, Math.min(first, r.originalKafkaOffset()), Math::min);
            }
        }
        if (targets.isEmpty()) {
            // The records to resend belonged to partitions closed since: their next owner re-reads them.
            retryNeeded = false;
            return;
        }
        Set<SinkRecord> skip = Collections.newSetFromMap(new IdentityHashMap<>());
        for (SinkRecord r : records) {
            if (targets.containsKey(tp(r))) {
                skip.add(r);
            }
        }
        for (Map.Entry<TopicPartition, Long> t : targets.entrySet()) {
            Partition p = partitions.get(t.getKey());
            for (Pending pe : p.queue) {
                pe.state = State.DISCARDED;
            }
            p.queue.clear();
            context.offset(t.getKey(), t.getValue());
        }
        skipOnRedelivery = skip;
        retryNeeded = false;
        counters.rewinds.increment();
        context.timeout(redeliveryBackoffMs);
        throw new RetriableException((thisPut ? "the batching writer's buffer (max.buffered.rows) stayed full for"
                + " max.block.ms while earlier writes were unanswered" : "GreptimeDB did not acknowledge some"
                + " records within the client's retries") + "; rewinding " + targets + " (partition=offset) for redelivery in " + redeliveryBackoffMs + " ms");
    }

    /**
     * Sends the held deletes (after the writes before them) and what the writer holds, waits up to the flush
     * timeout for the answers, and reports per partition the offset after the records settled by then. Flushing
     * here keeps the uncommitted tail short, so a rebalance or restart (which commits just before handing
     * partitions over) redelivers few records.
     *
     * @param currentOffsets the offsets Connect has delivered
     * @return the offsets safe to commit
     */
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        sendHeld();
        if (!batches.isEmpty() && !client.flush(flushTimeout)) {
            LOG.info("GreptimeDB sink: not every write was answered within {} ms; committing what was",
                    flushTimeout.toMillis());
        }
        settle();
        advanceAll();
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TopicPartition tp : currentOffsets.keySet()) {
            Partition p = partitions.get(tp);
            if (p != null && p.committable >= 0) {
                out.put(tp, new OffsetAndMetadata(p.committable));
            }
        }
        return out;
    }

    /**
     * Waits (bounded) for the writes of closing partitions, then forgets them; records not acknowledged are
     * redelivered to the partitions' next owner from the last committed offset.
     *
     * @param closed the partitions taken away
     */
    public void close(Collection<TopicPartition> closed) {
        if (!closed.isEmpty()) {
            sendHeld();
        }
        if (!closed.isEmpty() && !client.flush(flushTimeout)) {
            LOG.warn("GreptimeDB sink: writes of closing partitions {} were not all answered within {} ms; their"
                    + " records will be redelivered", closed, flushTimeout.toMillis());
        }
        settle();
        advanceAll();
        for (TopicPartition tp : closed) {
            Partition p = partitions.remove(tp);
            if (p != null) {
                for (Pending pe : p.queue) {
                    pe.state = State.DISCARDED;
                }
            }
        }
    }

    /** Flushes and closes the client; nothing is left pending and the client's threads end. */
    public void stop() {
        try {
            client.close(flushTimeout);
        } finally {
            batches.clear();
            partitions.clear();
        }
    }
}
