package dev.sluice.importer.internal.target;

import dev.sluice.data.Table;
import dev.sluice.write.Err;
import java.util.List;

/**
 * A write the server answered with an error, with the tables it held: what {@link RefusedRows} needs to narrow a
 * refusal down to the rows refused.
 */
public final class WriteRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Err err;
    private final transient List<Table> tables;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param err the server's answer
     * @param tables the tables of the refused write (null when they were not kept)
     */
    WriteRefused(String message, Err err, List<Table> tables) {
        super(message, err.cause());
        this.err = err;
        this.tables = tables;
    }

    /** @return the server's answer */
    public Err err() {
        return err;
    }

    /** @return the tables of the refused write, or null when they were not kept */
    public List<Table> tables() {
        return tables;
    }
}
