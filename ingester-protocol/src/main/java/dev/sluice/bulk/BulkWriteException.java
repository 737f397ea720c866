package dev.sluice.bulk;

import dev.sluice.write.Err;

/** A bulk write that failed: a batch, the stream, or the writer's memory limit. */
public final class BulkWriteException extends dev.sluice.write.WriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param err what the server or transport said, or null for failures of the writer itself
     * @param cause the cause, or null
     */
    public BulkWriteException(String message, Err err, Throwable cause) {
        super(message, err, dev.sluice.write.StatusCode.Grpc.UNKNOWN, false, java.util.List.of(), cause);
    }

}
