package dev.sluice.sql;

import java.util.List;

/**
 * What a statement returned: the column names and the rows, each value as its JSON text (null for SQL NULL).
 *
 * @param columns the result's column names, or empty for a statement without rows
 * @param rows the rows, in the server's order
 */
public record SqlAnswer(List<String> columns, List<List<String>> rows) {
}
