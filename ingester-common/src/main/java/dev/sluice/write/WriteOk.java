package dev.sluice.write;

import java.util.List;

/**
 * An acknowledged write.
 *
 * @param affectedRows the rows the server reports written (for deletes: removed)
 * @param tables the tables the write addressed
 */
public record WriteOk(long affectedRows, List<String> tables) {
    /** Copies the table list. */
    public WriteOk {
        tables = List.copyOf(tables);
    }
}
