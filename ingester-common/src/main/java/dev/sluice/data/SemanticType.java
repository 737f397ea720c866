package dev.sluice.data;

/**
 * The role a column plays in a GreptimeDB table.
 *
 * <p>Tags form the primary key (in declaration order), fields hold measured values, and exactly one
 * timestamp column is the table's time index.
 */
public enum SemanticType {
    /** Part of the primary key; rows with equal tags and time index are the same row. */
    Tag,
    /** A value column; nullable. */
    Field,
    /** The time index; exactly one per table, never null. */
    Timestamp
}
