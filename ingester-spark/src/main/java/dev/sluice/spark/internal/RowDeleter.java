package dev.sluice.spark.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sql.HttpSql;
import dev.sluice.sql.SqlAnswer;
import dev.sluice.sql.ServerColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Deletes the rows a Spark predicate on tags and the time index matches ({@code DELETE FROM}, and overwriting a
 * range): the keys of the matching rows are read with a {@code SELECT} over GreptimeDB's HTTP SQL API and deleted
 * by key over gRPC (GreptimeDB deletes rows by tags and time index). A predicate that is always true truncates the
 * table. Comparisons ({@code = <> < <= > >=}), {@code IN}, {@code IS [NOT] NULL}, {@code AND}, {@code OR} and
 * {@code NOT} over tags and the time index are translated; anything else is refused when the statement is planned.
 */
public final class RowDeleter {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);

    private RowDeleter() {
    }

    /**
     * Checks that the predicates can be translated, refusing with a message that names the condition and says which
     * conditions are accepted (Spark's own refusal says neither).
     *
     * @param o the options (table)
     * @param where the predicates, joined by AND
     * @return true when every predicate only compares tags and the time index with literals, or the predicates are
     *     always true; false when the table does not exist
     * @throws IllegalArgumentException naming the condition that cannot be translated and what is accepted
     */
    public static boolean translatable(WriteOptions o, Predicate[] where) {
        if (truncates(where)) {
            return true;
        }
        List<ServerColumn> columns = TablePlanner.describe(o);
        if (columns == null) {
            return false;
        }
        for (Predicate p : where) {
            try {
                sql(p, columns);
            } catch (IllegalArgumentException e) {
                List<String> keys = columns.stream().filter(c -> c.semantic() != SemanticType.Field)
                        .map(ServerColumn::name).toList();
                throw new IllegalArgumentException("cannot select the rows of table " + o.sink().database() + "."
                        + o.table() + " to delete or overwrite where " + p + ": " + e.getMessage() + ". GreptimeDB"
                        + " deletes rows by their tags and time index (here " + keys + "): a condition may compare"
                        + " a tag or the time index with a literal (= <> < <= > >=, IN, IS [NOT] NULL), joined by"
                        + " AND, OR and NOT; DELETE FROM without WHERE truncates the table", e);
            }
        }
        return true;
    }

    /** Tells whether the predicates are always true: the table is truncated. */
    private static boolean truncates(Predicate[] where) {
        return where.length == 0 || where.length == 1 && (where[0] instanceof AlwaysTrue
                || "ALWAYS_TRUE".equals(where[0].name()));
    }

    /**
     * Deletes the matching rows and waits for GreptimeDB's acknowledgement.
     *
     * @param o the options
     * @param where the predicates, joined by AND
     * @return rows deleted, or -1 when the table was truncated
     */
    public static long delete(WriteOptions o, Predicate[] where) {
        try {
            HttpSql http = TablePlanner.http(o);
            String table = HttpSql.quote(o.table());
            if (truncates(where)) {
                http.execute("TRUNCATE TABLE " + table);
                return -1;
            }
            List<ServerColumn> columns = http.describeTable(o.table()).orElseThrow(() ->
                    new IllegalArgumentException("table " + o.table() + " does not exist in " + o.sink().database()));
            List<String> keys = new ArrayList<>();
            List<String> conditions = new ArrayList<>();
            for (ServerColumn c : columns) {
                if (c.semantic() != SemanticType.Field) {
                    keys.add(HttpSql.quote(c.name()));
                }
            }
            for (Predicate p : where) {
                conditions.add(sql(p, columns));
            }
            SqlAnswer found = http.execute("SELECT " + String.join(", ", keys) + " FROM " + table + " WHERE "
                    + String.join(" AND ", conditions));
            TableSchema all = http.describeSchema(o.table()).orElseThrow();
            TableSchema.Builder kb = TableSchema.newBuilder(o.table());
            for (TableSchema.Column c : all.columns()) {
                if (c.semanticType() != SemanticType.Field) {
                    kb.addColumn(c.name(), c.semanticType(), c.dataType());
                }
            }
            TableSchema keySchema = kb.build();
            try (ClientSession s = ClientSession.open(o.sink(), new Metrics(), true)) {
                for (List<String> row : found.rows()) {
                    s.delete(keySchema, a -> {
                        for (int i = 0; i < row.size(); i++) {
                            a.setValue(i, value(keySchema.column(i).dataType(), row.get(i)));
                        }
                    });
                }
                s.flush();
            }
            return found.rows().size();
        } catch (IOException e) {
            throw new UncheckedIOException("deleting from GreptimeDB table " + o.table() + " failed: "
                    + e.getMessage(), e);
        } catch (ClientSession.BadRowException e) {
            throw new IllegalStateException("a key read from table " + o.table() + " could not be deleted: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting from table " + o.table(), e);
        }
    }

    private static Object value(DataType t, String text) {
        if (text == null) {
            return null;
        }
        if (t.isLongBacked() && t != DataType.Date) {
            return Long.parseLong(text);
        } else if (t.isDoubleBacked()) {
            return Double.parseDouble(text);
        } else if (t == DataType.Bool) {
            return Boolean.parseBoolean(text);
        }
        return text;
    }

    /** Translates one predicate into GreptimeDB SQL. */
    static String sql(Predicate p, List<ServerColumn> columns) {
        String name = p.name().toUpperCase(Locale.ROOT);
        var c = p.children();
        switch (name) {
            case "AND", "OR" -> {
                return "(" + sql((Predicate) c[0], columns) + " " + name + " " + sql((Predicate) c[1], columns) + ")";
            }
            case "NOT" -> {
                return "(NOT " + sql((Predicate) c[0], columns) + ")";
            }
            case "IS_NULL", "IS_NOT_NULL" -> {
                return column(c[0], columns) + (name.equals("IS_NULL") ? " IS NULL" : " IS NOT NULL");
            }
            case "=", "<>", "<", "<=", ">", ">=" -> {
                return column(c[0], columns) + " " + name + " " + literal(c[1]);
            }
            case "IN" -> {
                List<String> values = new ArrayList<>();
                for (int i = 1; i < c.length; i++) {
                    values.add(literal(c[i]));
                }
                return column(c[0], columns) + " IN (" + String.join(", ", values) + ")";
            }
            default -> throw new IllegalArgumentException(p.name() + " is not accepted");
        }
    }

    private static String column(Object e, List<ServerColumn> columns) {
        if (!(e instanceof NamedReference r) || r.fieldNames().length != 1) {
            throw new IllegalArgumentException(e + " is not a column");
        }
        String n = r.fieldNames()[0];
        ServerColumn c = columns.stream().filter(x -> x.name().equals(n)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no column " + n));
        if (c.semantic() == SemanticType.Field) {
            throw new IllegalArgumentException("column " + n + " is a field, not a tag or the time index");
        }
        return HttpSql.quote(n);
    }

    private static String literal(Object e) {
        if (!(e instanceof Literal<?> l)) {
            throw new IllegalArgumentException(e + " is not a literal");
        }
        Object v = l.value();
        if (v == null) {
            return "NULL";
        }
        if (l.dataType() instanceof TimestampType || l.dataType() instanceof TimestampNTZType) {
            long us = (Long) v;
            return "'" + TS.format(Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L),
                    Math.floorMod(us, 1_000_000L) * 1000L)) + "'";
        }
        if (l.dataType() instanceof DateType) {
            return "'" + java.time.LocalDate.ofEpochDay((Integer) v) + "'";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return "'" + v.toString().replace("'", "''") + "'";
    }
}
