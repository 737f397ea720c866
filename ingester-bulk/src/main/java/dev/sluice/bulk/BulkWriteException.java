package dev.sluice.bulk;

import dev.sluice.Err;

/** A bulk write that failed: a batch, the stream, or the writer's memory limit. */
public final class BulkWriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Err err;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param err what the server or transport said, or null for failures of the writer itself
     * @param cause the cause, or null
     */
    public BulkWriteException(String message, Err err, Throwable cause) {
        super(message, cause);
        this.err = err;
    }

    /**
     * Returns what the server or transport said.
     *
     * @return the error, or null when the writer itself failed (timeout, memory limit, closed)
     */
    public Err err() {
        return err;
    }
}
