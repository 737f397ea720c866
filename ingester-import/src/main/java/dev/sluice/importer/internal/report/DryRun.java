package dev.sluice.importer.internal.report;

import dev.sluice.data.RowAppender;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.plan.BadValue;
import dev.sluice.importer.internal.plan.CellText;
import dev.sluice.importer.internal.plan.DdlText;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.plan.SampledCollisions;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.LineProtocolSource;
import dev.sluice.importer.internal.plan.LineProtocolTables;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.source.Sampled;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** {@code --dry-run}: the DDL an import would run and its first rows as they would be stored; nothing is sent. */
public final class DryRun {
    private DryRun() {
    }

    /**
     * Shows the table an import of CSV, TSV, JSON Lines or Parquet would create (or the columns it would add) and the
     * sampled input's first rows as they would be stored.
     *
     * @param out where it goes
     * @param plan the plan
     * @param bulk whether the bulk path would write
     * @param sampled the sampled input's records
     * @param sampledName the sampled input's name
     * @param rows how many rows to show
     */
    public static void oneTable(PrintStream out, Plan plan, boolean bulk, Sampled sampled, String sampledName,
            int rows) {
        if (plan.tableExists()) {
            out.println("-- table '" + plan.schema().tableName() + "' exists; rows are converted to its column types");
            for (Plan.Col c : plan.cols()) {
                if (plan.newColumns().contains(c.name())) {
                    out.println(DdlText.addColumn(plan.schema().tableName(), c) + "  -- added by the regular path's first"
                            + " write");
                }
            }
        } else {
            out.println(DdlText.createTable(plan));
        }
        out.println("-- path: " + (bulk ? "bulk" : "regular"));
        for (Plan.Col c : plan.cols()) {
            if (c.semantic() == SemanticType.Timestamp) {
                out.println("-- time index: " + c.name() + (c.source() == null ? " (the import's time)"
                        : " from '" + c.source() + "' as " + c.timeFormat()));
            }
        }
        Table t = Table.from(plan.schema());
        RowAppender a = t.appender();
        TableSchema schema = plan.schema();
        int shown = 0;
        List<String> problems = new ArrayList<>();
        long ordinal = 0;
        long base = System.currentTimeMillis() * 1_000_000L;
        int[] bind = plan.bind(sampled.columns());
        while (shown < rows) {
            try {
                if (!sampled.next()) {
                    break;
                }
            } catch (RecordSource.BadRecord b) {
                problems.add("'" + sampledName + "' line " + b.line() + " " + b.getMessage());
                shown++;
                continue;
            } catch (IOException e) {
                break;
            }
            ordinal++;
            shown++;
            try {
                SampledCollisions.appendRow(plan, bind, a, sampled::value, base + ordinal);
            } catch (BadValue e) {
                a.cancelRow();
                problems.add("'" + sampledName + "' " + sampled.where() + ", column '" + e.column() + "': " + e.getMessage());
            } catch (RuntimeException e) {
                a.cancelRow();
                problems.add("'" + sampledName + "' " + sampled.where() + ": " + e.getMessage());
            }
        }
        out.println("-- first rows as stored:");
        List<String> header = new ArrayList<>();
        for (TableSchema.Column c : schema.columns()) {
            header.add(c.name());
        }
        out.println(String.join("\t", header));
        for (int r = 0; r < t.rowCount(); r++) {
            List<String> cells = new ArrayList<>();
            for (int c = 0; c < schema.columnCount(); c++) {
                cells.add(CellText.cell(t.column(c), schema.column(c), r));
            }
            out.println(String.join("\t", cells));
        }
        for (String p : problems) {
            out.println("-- rejected: " + p);
        }
    }

    /**
     * Shows the tables an import of line protocol would create and the first input's first rows as they would be
     * stored.
     *
     * @param out where it goes
     * @param first the first input
     * @param precision the timestamps' units per second
     * @param columns the columns the samples decided
     * @param with the options of tables the import creates
     * @param rows how many rows to show
     * @param rawBytes counts the bytes read
     */
    public static void lineProtocol(PrintStream out, Inputs.Input first, long precision,
            LineProtocolTables.Columns columns, Map<String, String> with, int rows, AtomicLong rawBytes) {
        LineProtocolTables tables = new LineProtocolTables(precision, columns);
        List<String> problems = new ArrayList<>();
        try (LineProtocolSource src = new LineProtocolSource(Inputs.open(first, rawBytes))) {
            for (int shown = 0; shown < rows; shown++) {
                try {
                    if (!src.next()) {
                        break;
                    }
                    tables.add(src.point(), System.currentTimeMillis() * 1_000_000L);
                } catch (RecordSource.BadRecord e) {
                    problems.add("'" + first.name() + "' " + e.description());
                } catch (BadValue | IllegalArgumentException e) {
                    problems.add("'" + first.name() + "' line " + src.line() + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new ImportFailure("'" + first.name() + "' cannot be read: " + e.getMessage(), e);
        }
        for (TableSchema s : tables.schemas()) {
            if (columns.existing(s.tableName()) != null) {
                out.println("-- table '" + s.tableName() + "' exists; the regular path adds columns it lacks");
            } else {
                out.println(DdlText.createTable(s, with));
            }
        }
        out.println("-- path: regular");
        out.println("-- first rows as stored:");
        for (Table t : tables.drain()) {
            TableSchema s = t.schema();
            List<String> header = new ArrayList<>();
            s.columns().forEach(c -> header.add(c.name()));
            out.println(s.tableName() + ": " + String.join("\t", header));
            for (int row = 0; row < t.rowCount(); row++) {
                List<String> cells = new ArrayList<>();
                for (int c = 0; c < s.columnCount(); c++) {
                    cells.add(CellText.cell(t.column(c), s.column(c), row));
                }
                out.println(s.tableName() + ": " + String.join("\t", cells));
            }
        }
        for (String p : problems) {
            out.println("-- rejected: " + p);
        }
    }
}
