package dev.sluice.write;

/** What a write does with its rows. */
public enum WriteOp {
    /** Insert (or, on a table without append mode, overwrite rows with the same tags and time index). */
    Insert,
    /** Delete the rows with these tags and time index; only tag and timestamp columns are sent. */
    Delete
}
