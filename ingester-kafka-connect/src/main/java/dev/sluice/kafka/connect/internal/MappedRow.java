package dev.sluice.kafka.connect.internal;

import dev.sluice.data.TableSchema;

/**
 * One record turned into a row: its table's schema and one value per column, in schema order.
 *
 * @param schema the table schema
 * @param values the values, converted to the Java types the column accepts
 */
public record MappedRow(TableSchema schema, Object[] values) {
}
