package dev.sluice.importer.internal.plan;

import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** DDL text: the CREATE TABLE and ALTER TABLE statements the import runs or shows. */
public final class DdlText {
    private DdlText() {
    }

    /**
     * Quotes an identifier for SQL.
     *
     * @param name the identifier
     * @return it in double quotes
     */
    public static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * Renders the CREATE TABLE the import runs when the table does not exist.
     *
     * @param plan the plan
     * @return the statement
     */
    public static String createTable(Plan plan) {
        return createTable(plan.schema(), plan.mapping().tableOptions());
    }

    /**
     * Renders the ALTER TABLE that adds a column.
     *
     * @param table the table
     * @param c the column
     * @return the statement
     */
    public static String addColumn(String table, Plan.Col c) {
        return "ALTER TABLE " + quote(table) + " ADD COLUMN " + quote(c.name()) + " " + c.type().sql() + ";";
    }

    /**
     * Renders the CREATE TABLE of a schema.
     *
     * @param schema the schema
     * @param tableOptions options for the WITH clause
     * @return the statement
     */
    public static String createTable(TableSchema schema, Map<String, String> tableOptions) {
        StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(quote(schema.tableName())).append(" (\n");
        List<String> tags = new ArrayList<>();
        String ts = null;
        for (TableSchema.Column c : schema.columns()) {
            sb.append("  ").append(quote(c.name())).append(' ').append(TypeNames.of(c).sql());
            if (c.semanticType() == SemanticType.Timestamp) {
                sb.append(" NOT NULL");
                ts = c.name();
            } else if (c.semanticType() == SemanticType.Tag) {
                tags.add(quote(c.name()));
            }
            sb.append(",\n");
        }
        sb.append("  TIME INDEX (").append(quote(ts)).append(')');
        if (!tags.isEmpty()) {
            sb.append(",\n  PRIMARY KEY (").append(String.join(", ", tags)).append(')');
        }
        sb.append("\n)");
        if (!tableOptions.isEmpty()) {
            List<String> opts = new ArrayList<>();
            tableOptions.forEach((k, v) -> opts.add("'" + k + "' = '" + v.replace("'", "''") + "'"));
            sb.append(" WITH (").append(String.join(", ", opts)).append(')');
        }
        return sb.append(';').toString();
    }
}
