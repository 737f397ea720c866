package dev.sluice.sink.internal;

import dev.sluice.write.Err;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deletes kept in order with the writes around them, per table, without a flush per delete: deletes are held per
 * table and sent as one run, after the batching writer has answered every write handed to it before them, when a
 * write to that table comes ({@link #beforeWrite(String)}), when a table holds {@code maxRows} of them, or when
 * the integration sends everything ({@link #sendAll()}). A run costs one flush of the writer and one request per
 * table and key schema; a run GreptimeDB refuses as data is searched for its refused rows by
 * {@link RefusedRowIsolator}. A delete from a table that does not exist is done (there is nothing to remove).
 *
 * <p>Used from one thread.
 *
 * @param <R> the integration's row: the key (tags and time index) of a row to delete
 */
public final class OrderedDeletes<R> {
    private final SinkClients clients;
    private final RefusedRowIsolator<R> isolator;
    private final int maxRows;
    private final Duration flushTimeout;
    private final RefusedRowIsolator.Rows<R> rows;
    private final Map<String, List<R>> held = new LinkedHashMap<>();

    /**
     * Creates an empty set of deletes.
     *
     * @param clients the client the deletes go through
     * @param rows how keys become a table's rows
     * @param maxRows the most deletes a table holds before they are sent
     * @param flushTimeout the longest wait for the writes before a run of deletes
     */
    public OrderedDeletes(SinkClients clients, RefusedRowIsolator.Rows<R> rows, int maxRows, Duration flushTimeout) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        this.clients = clients;
        this.isolator = new RefusedRowIsolator<>(clients, rows);
        this.rows = rows;
        this.maxRows = maxRows;
        this.flushTimeout = flushTimeout;
    }

    /**
     * Holds a delete; sends the table's run when it reaches {@code maxRows}.
     *
     * @param key the key of the row to delete
     * @return the run's outcome when it was sent, else null
     */
    public RefusedRowIsolator.Report<R> delete(R key) {
        String table = rows.schema(key).tableName();
        List<R> run = held.computeIfAbsent(table, t -> new ArrayList<>());
        run.add(key);
        return run.size() >= maxRows ? send(List.of(table)) : null;
    }

    /**
     * Sends the deletes a table holds, so that a write to it handed to the writer next lands after them.
     *
     * @param table the table about to be written
     * @return the run's outcome, or null when the table held none
     */
    public RefusedRowIsolator.Report<R> beforeWrite(String table) {
        return held.containsKey(table) ? send(List.of(table)) : null;
    }

    /**
     * Sends every delete held.
     *
     * @return the runs' outcome, or null when none was held
     */
    public RefusedRowIsolator.Report<R> sendAll() {
        return held.isEmpty() ? null : send(new ArrayList<>(held.keySet()));
    }

    /** @return the deletes held */
    public int held() {
        int n = 0;
        for (List<R> run : held.values()) {
            n += run.size();
        }
        return n;
    }

    /** Forgets every delete held (their rows are to be sent again from the start). */
    public void discard() {
        held.clear();
    }

    private RefusedRowIsolator.Report<R> send(List<String> tables) {
        List<R> keys = new ArrayList<>();
        for (String t : tables) {
            keys.addAll(held.remove(t));
        }
        if (!clients.flush(flushTimeout)) {
            Err err = SinkClients.localErr(StatusCode.Grpc.DEADLINE_EXCEEDED, true, tables.get(0), "the writes before "
                    + keys.size() + " deletes from " + tables + " were not answered within " + flushTimeout.toMillis()
                    + " ms, so the deletes were not sent (they must not land before those writes)", null);
            return new RefusedRowIsolator.Report<>(List.of(), List.of(), keys, err);
        }
        return isolator.isolate(keys, WriteOp.Delete);
    }
}
