package dev.sluice.write;

import dev.sluice.data.InvalidDataException;
import java.util.List;

/**
 * The one outcome type of a write that failed on any path that reports failures as exceptions: a stream
 * ({@code StreamWriteException}), a bulk writer ({@code BulkWriteException}), the batching writer
 * ({@code BatchWriteException}), or a client limit ({@code LimitExceededException}). Regular writes report the
 * same {@link Err} through {@code Result<WriteOk, Err>} instead. {@link #err()} is never null: when the client
 * itself failed (a timeout, a closed writer, a limit), it holds code -1, the closest transport status and whether
 * trying again may help, so a caller decides with one check: {@code e.err().retryable()}.
 *
 * <p>Bad input is not a {@code WriteException}: it is refused earlier, before anything is sent, with an
 * {@link InvalidDataException} naming table, column and row.
 */
public abstract class WriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Err err;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param err what the server or transport said, or null when the client itself failed
     * @param localCode the transport status closest to the client's own failure (used when {@code err} is null)
     * @param localRetryable whether trying again may help after the client's own failure
     * @param tables the tables concerned (used when {@code err} is null)
     * @param cause the cause, or null
     */
    protected WriteException(String message, Err err, StatusCode.Grpc localCode, boolean localRetryable,
                             List<String> tables, Throwable cause) {
        super(message, cause);
        this.err = err != null ? err : new Err(-1, localCode, message, localRetryable, tables, cause);
    }

    /**
     * Returns what the server or transport said, or what the client itself reports.
     *
     * @return the error, never null
     */
    public Err err() {
        return err;
    }

    /**
     * Tells what the failure is about: the rows, the settings, or a passing condition.
     *
     * @return {@code err().kind()}
     */
    public ErrorKind kind() {
        return err.kind();
    }

    /**
     * Tells whether sending the same data again may succeed.
     *
     * @return {@code err().retryable()}
     */
    public boolean retryable() {
        return err.retryable();
    }
}
