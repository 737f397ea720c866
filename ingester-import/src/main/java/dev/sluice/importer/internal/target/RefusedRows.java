package dev.sluice.importer.internal.target;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.plan.CellText;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.write.Err;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Narrows a write the server refused because of its data down to the rows it refuses, with the integrations'
 * {@link RefusedRowIsolator}: each table of the request is written directly, and a part the server refuses is split
 * in halves, each written again, until every refused row stands alone. The rows of the parts the server accepts are
 * written; the refused ones are returned with the server's message. A failure that is not about the rows (no
 * answer, unavailable, credentials, a missing database) ends the narrowing: it is the import's to report. What stays
 * here is the import's own: which refusals are narrowed, and where a refused row came from (its line and text) for
 * the rejects file.
 */
public final class RefusedRows {
    /**
     * One row the server refused.
     *
     * @param table the index of its table in the refused request
     * @param row its row in that table
     * @param reason the server's message, with its code
     */
    public record Refused(int table, int row, String reason) {
    }

    /**
     * What the narrowing wrote and found.
     *
     * @param written rows the server acknowledged
     * @param refused the rows it refused
     */
    public record Outcome(long written, List<Refused> refused) {
    }

    /** Where the rows of a refused request came from, for the rejects file. */
    public interface Origin {
        /**
         * The input's line of a row (Parquet: its row of the file).
         *
         * @param table the index of the row's table in the request
         * @param row the row in that table
         * @return the line
         */
        long line(int table, int row);

        /**
         * The input's text of a row.
         *
         * @param t the row's table
         * @param table the index of that table in the request
         * @param row the row in it
         * @return the text
         */
        String raw(Table t, int table, int row);
    }

    /**
     * A line of line protocol and its number.
     *
     * @param line its number in the input
     * @param text the line
     */
    public record LineText(long line, String text) {
    }

    /**
     * Where the rows of a request's tables came from: a table's rows are its measurement's lines in the order added
     * (a measurement whose columns grew has two tables in the request, in that order). Empties {@code origins}.
     */
    public static Origin lineOrigins(List<Table> drained, Map<String, List<LineText>> origins) {
        if (origins == null) {
            return null;
        }
        List<List<LineText>> perTable = new ArrayList<>();
        Map<String, Integer> taken = new java.util.HashMap<>();
        for (Table t : drained) {
            List<LineText> lines = origins.getOrDefault(t.tableName(), List.of());
            int from = taken.getOrDefault(t.tableName(), 0);
            int to = Math.min(lines.size(), from + t.rowCount());
            perTable.add(List.copyOf(lines.subList(Math.min(from, to), to)));
            taken.put(t.tableName(), to);
        }
        origins.clear();
        return new Origin() {
            @Override
            public long line(int table, int row) {
                List<LineText> l = perTable.get(table);
                return row < l.size() ? l.get(row).line() : 0;
            }

            @Override
            public String raw(Table t, int table, int row) {
                List<LineText> l = perTable.get(table);
                return row < l.size() ? l.get(row).text() : json(t, row);
            }
        };
    }

    /**
     * A row of a refused request.
     *
     * @param index its table's index in the request
     * @param table the table
     * @param row its row in that table
     */
    private record Row(int index, Table table, int row) {
    }

    /** Copies a row of a refused request's table into the table of a direct write. */
    private static final RefusedRowIsolator.Rows<Row> ROWS = new RefusedRowIsolator.Rows<>() {
        @Override
        public TableSchema schema(Row r) {
            return r.table().schema();
        }

        @Override
        public void append(Row r, Table into) {
            TableSchema s = r.table().schema();
            RowAppender a = into.appender();
            for (int c = 0; c < s.columnCount(); c++) {
                copy(r.table().column(c), r.row(), a, c);
            }
            a.endRow();
        }
    };

    private final RefusedRowIsolator<Row> isolator;

    /**
     * Creates the narrowing.
     *
     * @param clients the client whose direct (regular path) writes it makes
     * @param ctx the write context
     */
    RefusedRows(SinkClients clients, dev.sluice.write.Context ctx) {
        this.isolator = new RefusedRowIsolator<>(clients, ctx, ROWS);
    }

    /**
     * Whether a failure is the server refusing the data of the write: an answer (not a transport failure or a
     * missing answer) that the client's one classification, {@link ErrorKind}, counts as about the rows
     * ({@link ErrorKind#Data}: 1004 InvalidArguments that names no setting, 1002 Unexpected, 3001
     * EngineExecuteQuery...), as the Kafka sink dead-letters it. Every part the narrowing writes is judged the same
     * way ({@link RefusedRowIsolator}).
     *
     * @param t the failure of a write
     * @return the refusal, or null when the failure is of another kind
     */
    public static WriteRefused aboutTheData(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof WriteRefused w && w.tables() != null && ofTheData(w.err()) ? w : null;
    }

    private static boolean ofTheData(Err e) {
        return e.kind() == ErrorKind.Data;
    }

    /**
     * Whether a failure is the server refusing a write's data, as {@link #aboutTheData} judges it, whether or not the
     * write's rows were kept: a rerun sending the same rows meets the same refusal.
     *
     * @param t the failure of a write, or a failure caused by one
     * @return true when the server refused the data
     */
    public static boolean refusesTheData(Throwable t) {
        for (int depth = 0; t != null && depth < 20; t = t.getCause(), depth++) {
            if (t instanceof WriteRefused w) {
                return ofTheData(w.err());
            }
            if (t instanceof dev.sluice.write.WriteException w) {
                return ofTheData(w.err());
            }
        }
        return false;
    }

    /**
     * Writes the refused request's rows directly, each table's on their own and halved where refused
     * ({@link RefusedRowIsolator}).
     *
     * @param tables the tables of the refused request
     * @return what was written and refused
     * @throws ImportFailure when a write fails for another reason than its rows
     */
    public Outcome narrow(List<Table> tables) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            Table t = tables.get(i);
            for (int r = 0; r < t.rowCount(); r++) {
                rows.add(new Row(i, t, r));
            }
        }
        RefusedRowIsolator.Report<Row> report = isolator.isolate(rows, WriteOp.Insert);
        if (report.stoppedBy() != null) {
            Err e = report.stoppedBy();
            throw new ImportFailure("writing the parts of a refused request: " + SinkClients.describe(e)
                    + (e.retryable() ? "; run the import again to resume" : ""), e.cause());
        }
        List<Refused> refused = new ArrayList<>();
        for (RefusedRowIsolator.Refused<Row> r : report.refused()) {
            refused.add(new Refused(r.row().index(), r.row().row(), r.err().message() + " (code " + r.err().code() + ")"));
        }
        return new Outcome(report.stored().size(), refused);
    }

    private static void copy(ColumnVector v, int r, RowAppender a, int c) {
        if (v.isNull(r)) {
            return;
        }
        DataType t = v.dataType();
        if (t == DataType.UInt64) {
            a.setValue(c, new java.math.BigInteger(Long.toUnsignedString(v.getLong(r))));
        } else if (t.isLongBacked()) {
            a.setLong(c, v.getLong(r));
        } else if (t.isDoubleBacked()) {
            a.setDouble(c, v.getDouble(r));
        } else if (t.isStringBacked()) {
            a.setString(c, v.getString(r));
        } else if (t == DataType.Bool) {
            a.setBoolean(c, v.getBool(r));
        } else if (t == DataType.Decimal128) {
            a.setDecimal(c, v.getDecimal(r));
        } else {
            a.setBytes(c, v.getBytes(r));
        }
    }

    /**
     * A row as it was sent, as a JSON object of its columns' values (the rejects file's {@code raw} of a row the
     * server refused, when the input's own text is not at hand).
     *
     * @param t the table
     * @param r the row
     * @return the JSON text
     */
    public static String json(Table t, int r) {
        StringBuilder sb = new StringBuilder("{");
        TableSchema s = t.schema();
        for (int c = 0; c < s.columnCount(); c++) {
            if (c > 0) {
                sb.append(", ");
            }
            sb.append(quote(s.column(c).name())).append(": ");
            sb.append(t.column(c).isNull(r) ? "null" : quote(CellText.cell(t.column(c), s.column(c), r)));
        }
        return sb.append('}').toString();
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                sb.append('\\').append(ch);
            } else if (ch < 0x20) {
                sb.append(String.format("\\u%04x", (int) ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.append('"').toString();
    }
}
