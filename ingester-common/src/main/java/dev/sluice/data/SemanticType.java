package dev.sluice.data;

/**
 * The role a column plays in a GreptimeDB table.
 *
 * <p>Tags form the primary key (in declaration order), fields hold measured values, and exactly one
 * timestamp column is the table's time index.
 */
public enum SemanticType {
    /** Part of the primary key; rows with equal tags and time index are the same row. */
    Tag(0),
    /** A value column; nullable. */
    Field(1),
    /** The time index; exactly one per table, never null. */
    Timestamp(2);

    private final int wireNumber;

    SemanticType(int wireNumber) {
        this.wireNumber = wireNumber;
    }

    /**
     * Returns the number GreptimeDB's protocol uses for this semantic type.
     *
     * @return the {@code greptime.v1.SemanticType} enum number
     */
    public int wireNumber() {
        return wireNumber;
    }
}
