package dev.sluice.sink.internal;

import dev.sluice.data.InvalidDataException;
import dev.sluice.write.Err;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Deletes kept in stream order with the writes around them, per row, without a flush per delete. A row is its
 * table, tags and time index (its identity in GreptimeDB); writes and deletes of different rows may land in any
 * order, those of one row land in the stream's order.
 *
 * <p>Deletes are held per table. A write of a row with a delete held is held too ({@link #holds}), to be handed to
 * the batching writer after the deletes; a delete of a row with such a write held waits until what is held is sent
 * ({@link #hold} refuses it). Sending ({@link #send}) happens once the batching writer has answered every write
 * handed to it before: the held deletes go as one request per table and key schema, a request GreptimeDB refuses
 * as data is searched for its refused rows by {@link RefusedRowIsolator}, and a delete from a table that does not
 * exist is done (there is nothing to remove). Then the held writes are returned, in stream order, for the caller to
 * hand to the batching writer. So a stream that alternates writes and deletes costs a flush and a delete request
 * per send, not per delete. What is held is due ({@link #due}) when a table holds {@code maxRows} deletes, when as
 * many writes wait, or when the oldest delete was held for the linger.
 *
 * <p>Used from one thread.
 *
 * @param <R> the integration's row: a row to write, or the key (tags and time index) of a row to delete
 */
public final class OrderedDeletes<R> {
    private final RefusedRowIsolator<R> isolator;
    private final RefusedRowIsolator.Rows<R> rows;
    private final int maxRows;
    private final Duration linger;
    private final RowKeys keys = new RowKeys();
    /** Deletes held per table, in stream order. */
    private final Map<String, List<R>> deletes = new LinkedHashMap<>();
    /** The rows the held deletes address. */
    private final Set<RowKeys.Key> deletedKeys = new HashSet<>();
    /** Writes of rows with a delete held, in stream order. */
    private final List<R> writes = new ArrayList<>();
    /** The rows the held writes address. */
    private final Set<RowKeys.Key> writeKeys = new HashSet<>();
    private int deleteCount;
    private boolean tableFull;
    /** When the oldest held delete was taken ({@link System#nanoTime()}). */
    private long since;

    /**
     * What a send did.
     *
     * @param deletes the deletes stored, refused as data (each with its answer), or not written (with the answer
     *     that stopped them)
     * @param writes the writes that waited for the deletes, in stream order: the caller hands them to the batching
     *     writer now
     * @param <R> the integration's row
     */
    public record Sent<R>(RefusedRowIsolator.Report<R> deletes, List<R> writes) {
        /** Copies the list. */
        public Sent {
            writes = List.copyOf(writes);
        }
    }

    /**
     * Creates an empty set of deletes that are due as the clients' batching writer's batches are: when a table holds
     * its batch rows, or after its flush interval. An integration's deletes so reach GreptimeDB with the writes
     * around them, whichever integration it is.
     *
     * @param clients the client the deletes go through, with its batching writer
     * @param rows how writes and keys become a table's rows (and which row of GreptimeDB they address)
     * @throws IllegalStateException when the clients have no batching writer
     */
    public OrderedDeletes(SinkClients clients, RefusedRowIsolator.Rows<R> rows) {
        this(clients, rows, clients.writerConfig().maxBatchRows(), clients.writerConfig().flushInterval());
    }

    /**
     * Creates an empty set of deletes.
     *
     * @param clients the client the deletes go through
     * @param rows how writes and keys become a table's rows (and which row of GreptimeDB they address)
     * @param maxRows the most deletes a table holds, and the most writes held, before what is held is due
     * @param linger the longest a delete is held before what is held is due
     */
    public OrderedDeletes(SinkClients clients, RefusedRowIsolator.Rows<R> rows, int maxRows, Duration linger) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        this.isolator = new RefusedRowIsolator<>(clients, rows);
        this.rows = rows;
        this.maxRows = maxRows;
        this.linger = linger;
    }

    /**
     * Holds a write when a delete of its row is held: it must reach the batching writer after that delete.
     *
     * @param write the row to write
     * @return true when the write is held (the caller does not hand it to the batching writer); false when the
     *     caller hands it now
     * @throws InvalidDataException when a value does not fit its column (only read when deletes are held)
     */
    public boolean holds(R write) {
        if (deletedKeys.isEmpty()) {
            return false;
        }
        RowKeys.Key key = keys.of(write, rows);
        if (!deletedKeys.contains(key)) {
            return false;
        }
        writes.add(write);
        writeKeys.add(key);
        return true;
    }

    /**
     * Holds a delete, unless a write of its row is held: that write must land first, so the caller sends what is
     * held ({@link #send}) and holds the delete again.
     *
     * @param key the key of the row to delete
     * @return true when held; false when what is held must be sent first
     * @throws InvalidDataException when a value does not fit its column (nothing is held)
     */
    public boolean hold(R key) {
        RowKeys.Key k = keys.of(key, rows);
        if (writeKeys.contains(k)) {
            return false;
        }
        if (deleteCount == 0) {
            since = System.nanoTime();
        }
        List<R> run = deletes.computeIfAbsent(rows.schema(key).tableName(), t -> new ArrayList<>());
        run.add(key);
        deleteCount++;
        tableFull |= run.size() >= maxRows;
        deletedKeys.add(k);
        return true;
    }

    /** @return true when nothing is held */
    public boolean isEmpty() {
        return deleteCount == 0 && writes.isEmpty();
    }

    /** @return the deletes and writes held */
    public int held() {
        return deleteCount + writes.size();
    }

    /**
     * Tells whether what is held is to be sent now: a table holds {@code maxRows} deletes, as many writes wait, or
     * the oldest delete was held for the linger.
     *
     * @return true when due
     */
    public boolean due() {
        return tableFull || writes.size() >= maxRows || deleteCount > 0 && untilDue().isZero();
    }

    /**
     * Says how long until the oldest held delete has waited the linger.
     *
     * @return the time left (zero when due), or the linger when nothing is held
     */
    public Duration untilDue() {
        if (deleteCount == 0) {
            return linger;
        }
        long left = linger.toNanos() - (System.nanoTime() - since);
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /**
     * Sends the held deletes and releases the held writes. The caller first waits until the batching writer has
     * answered every write handed to it (a flush): the deletes must not land before those writes.
     *
     * @param drained whether that wait succeeded; when not, the deletes are not sent and come back not written with
     *     a retryable answer saying why
     * @param waited the wait's bound, named in that answer
     * @return what was sent, or null when nothing was held
     */
    public Sent<R> send(boolean drained, Duration waited) {
        if (isEmpty()) {
            return null;
        }
        List<String> tables = new ArrayList<>(deletes.keySet());
        List<R> keysToSend = new ArrayList<>(deleteCount);
        for (List<R> run : deletes.values()) {
            keysToSend.addAll(run);
        }
        List<R> released = new ArrayList<>(writes);
        discard();
        RefusedRowIsolator.Report<R> report;
        if (keysToSend.isEmpty()) {
            report = new RefusedRowIsolator.Report<>(List.of(), List.of(), List.of(), null);
        } else if (!drained) {
            Err err = SinkClients.localErr(StatusCode.Grpc.DEADLINE_EXCEEDED, true, tables.get(0), "the writes before "
                    + keysToSend.size() + " deletes from " + tables + " were not answered within " + waited.toMillis()
                    + " ms, so the deletes were not sent (they must not land before those writes)", null);
            report = new RefusedRowIsolator.Report<>(List.of(), List.of(), keysToSend, err);
        } else {
            report = isolator.isolate(keysToSend, WriteOp.Delete);
        }
        return new Sent<>(report, released);
    }

    /** Forgets everything held (its rows are to be sent again from the start). */
    public void discard() {
        deletes.clear();
        deletedKeys.clear();
        writes.clear();
        writeKeys.clear();
        deleteCount = 0;
        tableFull = false;
    }
}
