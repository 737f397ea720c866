package dev.sluice.importer.internal.plan;

import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Finds sampled rows that a table which keeps the last row of each key (tags and time index) would store as one:
 * rows the import would count as written while the table keeps fewer. Told before anything is written, with the
 * columns that tell such rows apart.
 */
public final class SampledCollisions {
    private SampledCollisions() {
    }

    /**
     * Converts one source row into the appender as the import stores it (a row without a time index column gets
     * the import's time).
     *
     * @param plan the plan
     * @param bind source index per table column ({@link Plan#bind})
     * @param a the appender; the row is ended
     * @param value the source row's value by source index
     * @param importTime the time index value of a row whose time is the import's
     * @throws BadValue when a value does not fit its column (the row is left open: cancel it)
     */
    public static void appendRow(Plan plan, int[] bind, RowAppender a, IntFunction<Object> value, long importTime)
            throws BadValue {
        TableSchema schema = plan.schema();
        for (int c = 0; c < schema.columnCount(); c++) {
            if (bind[c] < 0) {
                if (c == schema.timestampIndex()) {
                    a.setLong(c, importTime);
                }
                continue;
            }
            Object v = value.apply(bind[c]);
            if (v != null) {
                plan.values().set(a, c, v);
            }
        }
        a.endRow();
    }

    /**
     * Looks for sampled rows of equal tags and time index.
     *
     * @param plan the plan
     * @param columns the sampled input's columns
     * @param rows the sampled rows' values
     * @param input the sampled input's name
     * @return a warning naming the rows' count, the columns that tell them apart and the fix; null when every
     *     sampled row has a key of its own (or the time index is the import's own, one nanosecond apart per row)
     */
    public static String check(Plan plan, List<String> columns, List<Object[]> rows, String input) {
        TableSchema schema = plan.schema();
        int[] bind = plan.bind(columns);
        int ts = schema.timestampIndex();
        if (bind[ts] < 0) {
            return null;
        }
        Table t = Table.from(schema, rows.size());
        RowAppender a = t.appender();
        for (Object[] row : rows) {
            try {
                appendRow(plan, bind, a, i -> i < row.length ? row[i] : null, 0);
            } catch (BadValue | RuntimeException e) {
                a.cancelRow(); // a bad row is the import's to reject, not a key
            }
        }
        List<Integer> key = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            if (schema.column(c).semanticType() != SemanticType.Field) {
                key.add(c);
            }
        }
        Map<List<String>, Integer> first = new HashMap<>();
        Set<String> apart = new LinkedHashSet<>();
        Set<String> apartText = new LinkedHashSet<>();
        int collapsed = 0;
        String example = null;
        for (int r = 0; r < t.rowCount(); r++) {
            List<String> k = new ArrayList<>();
            for (int c : key) {
                k.add(CellText.cell(t.column(c), schema.column(c), r));
            }
            Integer earlier = first.putIfAbsent(k, r);
            if (earlier == null) {
                continue;
            }
            collapsed++;
            if (example == null) {
                example = CellText.cell(t.column(ts), schema.column(ts), r);
            }
            for (int c = 0; c < schema.columnCount(); c++) {
                if (key.contains(c)) {
                    continue;
                }
                String x = CellText.cell(t.column(c), schema.column(c), earlier);
                String y = CellText.cell(t.column(c), schema.column(c), r);
                if (!x.equals(y)) {
                    String source = plan.cols().get(c).source();
                    String name = source != null ? source : schema.column(c).name();
                    apart.add(name);
                    if (schema.column(c).dataType() == dev.sluice.data.DataType.String) {
                        apartText.add(name);
                    }
                }
            }
        }
        if (collapsed == 0) {
            return null;
        }
        List<String> tags = new ArrayList<>();
        for (int c : key) {
            if (c != ts) {
                tags.add(plan.cols().get(c).source() != null ? plan.cols().get(c).source() : schema.column(c).name());
            }
        }
        Set<String> offer = new LinkedHashSet<>(tags);
        offer.addAll(apartText.isEmpty() ? apart : apartText);
        String sourceTime = plan.cols().get(ts).source();
        return collapsed + " of the " + rows.size() + " sampled rows of '" + input + "' have the same "
                + (tags.isEmpty() ? "time index" : "tags (" + String.join(", ", tags) + ") and time index") + " as an"
                + " earlier row (e.g. '" + sourceTime + "' " + example + "): table '" + schema.tableName() + "' keeps"
                + " only the last row of equal tags and time, so such rows are acknowledged as written but not stored."
                + (apart.isEmpty() ? " They are equal in every column."
                        : " Columns that tell them apart: " + quoted(apart) + ". If they name a series, make them tags"
                        + (plan.tableExists() ? " of a new table (the existing table's tags stay as they are): --table"
                        + " <new> --tags " : ": --tags ") + String.join(",", offer) + ".")
                + " To keep every row, import into an append-mode table (--with append_mode=true).";
    }

    private static String quoted(Set<String> names) {
        List<String> q = new ArrayList<>();
        names.forEach(n -> q.add("'" + n + "'"));
        return String.join(", ", q);
    }
}
