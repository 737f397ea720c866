package dev.sluice.importer.internal;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Err;
import dev.sluice.write.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Narrows a write the server refused because of its data down to the rows it refuses: each table of the request is
 * written on its own, and a table the server refuses is split in halves, each written again, until every refused
 * row stands alone. The rows of the parts the server accepts are written; the refused ones are returned with the
 * server's message. A failure that is not about the rows (no answer, unavailable, credentials, a missing
 * database) ends the narrowing: it is the import's to report.
 */
final class RefusedRows {
    /**
     * One row the server refused.
     *
     * @param table the index of its table in the refused request
     * @param row its row in that table
     * @param reason the server's message, with its code
     */
    record Refused(int table, int row, String reason) {
    }

    /**
     * What the narrowing wrote and found.
     *
     * @param written rows the server acknowledged
     * @param refused the rows it refused
     */
    record Outcome(long written, List<Refused> refused) {
    }

    /** Where the rows of a refused request came from, for the rejects file. */
    interface Origin {
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
    record LineText(long line, String text) {
    }

    /**
     * Where the rows of a request's tables came from: a table's rows are its measurement's lines in the order added
     * (a measurement whose columns grew has two tables in the request, in that order). Empties {@code origins}.
     */
    static Origin lineOrigins(List<Table> drained, Map<String, List<LineText>> origins) {
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

    private final Client client;
    private final dev.sluice.write.Context ctx;
    private final long waitMillis;

    /**
     * Creates the narrowing.
     *
     * @param client the client whose direct (regular path) writes it makes
     * @param ctx the write context
     * @param waitMillis the longest one write is waited for
     */
    RefusedRows(Client client, dev.sluice.write.Context ctx, long waitMillis) {
        this.client = client;
        this.ctx = ctx;
        this.waitMillis = waitMillis;
    }

    /**
     * Whether a failure is the server refusing the data of the write: an answer with a code (not a transport
     * failure or a missing answer), not retryable, and not about the settings. GreptimeDB answers a bad value, a
     * time its partitions cannot hold, a type it cannot take with InvalidArguments (1004) or Unsupported (1001);
     * it answers a missing database and a table option it cannot parse with 1004 too, told apart by their
     * messages ("Failed to find schema", "Failed to parse table option").
     *
     * @param t the failure of a write
     * @return the refusal, or null when the failure is of another kind
     */
    static WriteRefused aboutTheData(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (!(t instanceof WriteRefused w) || w.tables() == null) {
            return null;
        }
        Err e = w.err();
        StatusCode c = e.statusCode();
        if (e.retryable() || c == null || (c != StatusCode.InvalidArguments && c != StatusCode.Unsupported)) {
            return null;
        }
        String m = e.message() == null ? "" : e.message();
        return m.contains("Failed to find schema") || m.contains("Failed to parse table option") ? null : w;
    }

    /**
     * Writes the refused request's tables, each on its own and halved where refused.
     *
     * @param tables the tables of the refused request
     * @return what was written and refused
     * @throws ImportFailure when a write fails for another reason than its rows
     */
    Outcome narrow(List<Table> tables) {
        List<Refused> refused = new ArrayList<>();
        long written = 0;
        for (int i = 0; i < tables.size(); i++) {
            Table t = tables.get(i);
            written += split(i, t, 0, t.rowCount(), refused);
        }
        return new Outcome(written, refused);
    }

    private long split(int index, Table t, int from, int to, List<Refused> refused) {
        Table part = from == 0 && to == t.rowCount() ? t : rows(t, from, to);
        try {
            return client.write(List.of(part), ctx).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            WriteRefused w = aboutTheData(e);
            if (w == null) {
                throw new ImportFailure("writing the parts of a refused request: " + ImportJob.message(e), e);
            }
            if (to - from == 1) {
                refused.add(new Refused(index, from, w.err().message() + " (code " + w.err().code() + ")"));
                return 0;
            }
            int mid = from + (to - from) / 2;
            return split(index, t, from, mid, refused) + split(index, t, mid, to, refused);
        } catch (TimeoutException e) {
            throw new ImportFailure("no answer within " + waitMillis + " ms while writing the parts of a refused"
                    + " request", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImportFailure("interrupted while writing the parts of a refused request", e);
        }
    }

    /** A table of rows {@code from..to-1} of another. */
    static Table rows(Table t, int from, int to) {
        TableSchema s = t.schema();
        Table out = Table.from(s, to - from);
        RowAppender a = out.appender();
        for (int r = from; r < to; r++) {
            for (int c = 0; c < s.columnCount(); c++) {
                copy(t.column(c), r, a, c);
            }
            a.endRow();
        }
        return out.complete();
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
    static String json(Table t, int r) {
        StringBuilder sb = new StringBuilder("{");
        TableSchema s = t.schema();
        for (int c = 0; c < s.columnCount(); c++) {
            if (c > 0) {
                sb.append(", ");
            }
            sb.append(quote(s.column(c).name())).append(": ");
            sb.append(t.column(c).isNull(r) ? "null" : quote(ImportJob.cell(t.column(c), s.column(c), r)));
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
