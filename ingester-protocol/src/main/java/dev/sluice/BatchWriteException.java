package dev.sluice;

import dev.sluice.write.Err;
import dev.sluice.write.WriteException;

/** A batch of a {@link BatchingWriter} that the server refused or that could not be delivered. */
public final class BatchWriteException extends WriteException {
    private static final long serialVersionUID = 1L;
    private final int rows;

    /**
     * Creates the exception.
     *
     * @param message what happened
     * @param err what the server or transport said, or null
     * @param rows rows in the failed batch
     * @param cause the cause, or null
     */
    public BatchWriteException(String message, Err err, int rows, Throwable cause) {
        super(message, err, dev.sluice.write.StatusCode.Grpc.UNAVAILABLE, true, java.util.List.of(), cause);
        this.rows = rows;
    }


    /** @return rows in the failed batch */
    public int rows() {
        return rows;
    }
}
