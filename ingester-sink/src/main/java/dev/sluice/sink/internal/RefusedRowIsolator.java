package dev.sluice.sink.internal;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.Result;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOk;
import dev.sluice.write.WriteOp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the rows of a batch GreptimeDB refused as data ({@link Err#kind()} {@link ErrorKind#Data}): the batch's
 * rows of each schema are written directly, and a refused part is split in halves and written again until each
 * refused row stands alone. The other rows are stored; each refused row is reported with the server's answer and
 * the column it names.
 *
 * <p>Requests: per schema, one for all its rows, then two per split; with {@code k} refused rows among {@code n},
 * at most {@code 1 + 2k⌈log2 n⌉}. Each waits at most {@link SinkClients#directWriteBound()}. The first answer that
 * is not about the data ({@link ErrorKind#Setup} or {@link ErrorKind#Transient}, unchanged) stops the search: no
 * more requests are sent, and the rows not stored yet are returned with that answer, so that rows sent again later
 * do not land after later rows of their batch.
 *
 * @param <R> the integration's row (a record, an element, a line)
 */
public final class RefusedRowIsolator<R> {
    private final SinkClients clients;
    private final Context context;
    private final Rows<R> rows;

    /**
     * How an integration's rows become a table's rows.
     *
     * @param <R> the integration's row
     */
    public interface Rows<R> {
        /**
         * Returns a row's schema; rows of equal schemas share requests.
         *
         * @param row the row
         * @return its schema
         */
        TableSchema schema(R row);

        /**
         * Adds a row to a table of its schema.
         *
         * @param row the row
         * @param table the table
         * @throws InvalidDataException when a value does not fit its column (then the row is refused alone)
         */
        void append(R row, Table table);
    }

    /**
     * A refused row.
     *
     * @param row the row
     * @param err the server's answer (or, for a value the client refused, one made here with code -1)
     * @param column the column the answer names, when it names one
     * @param <R> the integration's row
     */
    public record Refused<R>(R row, Err err, Optional<String> column) {
    }

    /**
     * What the search found.
     *
     * @param stored the rows stored
     * @param refused the rows refused as data, each with its answer
     * @param notWritten the rows not stored because an answer not about the data stopped the search
     * @param stoppedBy that answer, or null when every row was stored or refused
     * @param <R> the integration's row
     */
    public record Report<R>(List<R> stored, List<Refused<R>> refused, List<R> notWritten, Err stoppedBy) {
        /** Copies the lists. */
        public Report {
            stored = List.copyOf(stored);
            refused = List.copyOf(refused);
            notWritten = List.copyOf(notWritten);
        }
    }

    /**
     * Creates an isolator.
     *
     * @param clients the client its direct writes go through
     * @param rows how rows become a table's rows
     */
    public RefusedRowIsolator(SinkClients clients, Rows<R> rows) {
        this(clients, clients.context(), rows);
    }

    /**
     * Creates an isolator whose direct writes carry a context of the integration's own (for example table options
     * as hints, used when a write creates the table).
     *
     * @param clients the client its direct writes go through
     * @param context the per-call context of its direct writes
     * @param rows how rows become a table's rows
     */
    public RefusedRowIsolator(SinkClients clients, Context context, Rows<R> rows) {
        this.clients = clients;
        this.context = context;
        this.rows = rows;
    }

    /**
     * Writes a refused batch's rows directly, splitting refused parts until each refused row is found.
     *
     * @param batch the rows, in the order they were written
     * @param op insert, or delete (rows addressed by their tags and time index)
     * @return which rows were stored, refused, or not written
     */
    public Report<R> isolate(List<R> batch, WriteOp op) {
        Map<TableSchema, List<R>> bySchema = new LinkedHashMap<>();
        for (R r : batch) {
            bySchema.computeIfAbsent(rows.schema(r), s -> new ArrayList<>()).add(r);
        }
        Search<R> s = new Search<>();
        for (Map.Entry<TableSchema, List<R>> e : bySchema.entrySet()) {
            bisect(s, e.getKey(), e.getValue(), op);
        }
        return new Report<>(s.stored, s.refused, s.notWritten, s.stoppedBy);
    }

    private static final class Search<R> {
        final List<R> stored = new ArrayList<>();
        final List<Refused<R>> refused = new ArrayList<>();
        final List<R> notWritten = new ArrayList<>();
        Err stoppedBy;
    }

    private void bisect(Search<R> s, TableSchema schema, List<R> part, WriteOp op) {
        if (s.stoppedBy != null) {
            s.notWritten.addAll(part);
            return;
        }
        Result<WriteOk, Err> answer = write(schema, part, op);
        if (answer.isOk()) {
            s.stored.addAll(part);
            return;
        }
        Err err = answer.getErr();
        if (err.kind() != ErrorKind.Data) {
            s.stoppedBy = err;
            s.notWritten.addAll(part);
        } else if (part.size() == 1) {
            Optional<String> column = err.cause() instanceof InvalidDataException e && e.column() != null
                    ? Optional.of(e.column()) : err.column();
            s.refused.add(new Refused<>(part.get(0), err, column));
        } else {
            int half = part.size() / 2;
            bisect(s, schema, part.subList(0, half), op);
            bisect(s, schema, part.subList(half, part.size()), op);
        }
    }

    private Result<WriteOk, Err> write(TableSchema schema, List<R> part, WriteOp op) {
        Table t = Table.from(schema, part.size());
        try {
            for (R r : part) {
                rows.append(r, t);
            }
        } catch (InvalidDataException e) {
            String message = e.column() == null ? e.reason() : "column " + e.column() + ": " + e.reason();
            return Result.err(SinkClients.localErr(StatusCode.Grpc.INVALID_ARGUMENT, false, schema.tableName(), message, e));
        }
        return clients.writeDirect(t, op, context);
    }
}
