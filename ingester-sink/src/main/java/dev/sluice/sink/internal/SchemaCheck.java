package dev.sluice.sink.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.sql.ServerColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Compares the columns a sink writes with the columns of GreptimeDB's existing table, the way the server compares
 * them when a write arrives: the same type (decimal precision and scale and vector dimension included) and the same
 * role (tag, field or time index). On the bulk path every written column must already exist.
 */
public final class SchemaCheck {
    private SchemaCheck() {
    }

    /**
     * Lists what the server would refuse.
     *
     * @param written the columns the sink writes
     * @param declared where a written column's type comes from, by its index, e.g. {@code BIGINT in the Flink
     *     table} (for the message)
     * @param existing the table's columns
     * @param path the write path
     * @return one line per disagreement, empty when none
     */
    public static List<String> disagreements(SchemaSpec written, IntFunction<String> declared,
                                             List<ServerColumn> existing, BatchingWriter.Path path) {
        List<String> out = new ArrayList<>();
        ServerColumn serverTime = existing.stream().filter(c -> c.semantic() == SemanticType.Timestamp)
                .findFirst().orElse(null);
        for (int i = 0; i < written.columns().size(); i++) {
            SchemaSpec.Col w = written.columns().get(i);
            ServerColumn e = existing.stream().filter(c -> c.name().equals(w.name())).findFirst().orElse(null);
            String source = declared.apply(i);
            if (e == null) {
                if (w.semantic() == SemanticType.Timestamp && serverTime != null) {
                    out.add("column " + w.name() + " is the time index of the sink, but the table's time index is "
                            + serverTime.name() + ": write the time index into " + serverTime.name());
                } else if (path == BatchingWriter.Path.Bulk) {
                    out.add("column " + w.name() + " (" + source + ", written as " + typeName(w)
                            + ") is missing from GreptimeDB's table, and the bulk path does not add columns: add it"
                            + " (ALTER TABLE ... ADD COLUMN " + w.name() + " ...) or write over the regular path");
                }
                continue;
            }
            if (!sameType(w, e)) {
                out.add("column " + w.name() + " is " + source + ", written as " + typeName(w) + ", but "
                        + e.typeName() + " in GreptimeDB's table: give the sink's column a type written as "
                        + e.typeName() + " (cast it), or write to a table whose column is " + typeName(w));
            } else if (w.semantic() != e.semantic()) {
                out.add("column " + w.name() + " is a " + role(w.semantic()) + " in the sink but a "
                        + role(e.semantic()) + " in GreptimeDB's table: declare it as a " + role(e.semantic())
                        + " (tags, time index), or write to another table");
            }
        }
        return out;
    }

    private static boolean sameType(SchemaSpec.Col w, ServerColumn e) {
        if (e.type() != w.type()) {
            return false;
        }
        if (w.type() == DataType.Decimal128) {
            return e.decimal() != null && w.precision() == e.decimal().precision() && w.scale() == e.decimal().scale();
        }
        if (w.type() == DataType.Vector) {
            return e.vector() != null && w.dim() == e.vector().dim();
        }
        return true;
    }

    /**
     * Names a written column's type as the server names it.
     *
     * @param c the column
     * @return {@code Float64}, {@code Decimal(10, 2)}, {@code Vector(3)}...
     */
    public static String typeName(SchemaSpec.Col c) {
        return switch (c.type()) {
            case Bool -> "Boolean";
            case Decimal128 -> "Decimal(" + c.precision() + ", " + c.scale() + ")";
            case Vector -> "Vector(" + c.dim() + ")";
            default -> c.type().name();
        };
    }

    private static String role(SemanticType s) {
        return switch (s) {
            case Tag -> "tag";
            case Timestamp -> "time index";
            default -> "field";
        };
    }
}
