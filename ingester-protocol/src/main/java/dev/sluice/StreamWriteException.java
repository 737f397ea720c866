package dev.sluice;

import dev.sluice.write.Err;
import dev.sluice.write.WriteException;
import java.util.List;

/**
 * A stream that failed, was cancelled or could not take a write; lists the tables whose messages it sent without
 * a confirmation. GreptimeDB answers a stream once, at its end, and a failure ends it with no count of what it
 * had committed: the messages before the failing one are stored, later ones are not, and which is which cannot
 * be told. So every table listed may or may not have been stored; resend them (harmless on tables without
 * {@code append_mode}, where the last write of a row wins) or check them.
 */
public final class StreamWriteException extends WriteException {
    private static final long serialVersionUID = 1L;
    private final List<String> unconfirmedTables;

    /**
     * Creates the exception.
     *
     * @param message what happened
     * @param err what the server or transport said, or null when the writer itself refused
     * @param unconfirmedTables tables sent on the stream and not confirmed (each may or may not be stored), in send
     *     order (with repeats)
     * @param cause the cause, or null
     */
    public StreamWriteException(String message, Err err, List<String> unconfirmedTables, Throwable cause) {
        super(message, err, dev.sluice.write.StatusCode.Grpc.FAILED_PRECONDITION, false, unconfirmedTables, cause);
        this.unconfirmedTables = List.copyOf(unconfirmedTables);
    }


    /**
     * Lists the tables sent and not confirmed: each may or may not have been stored (see the class comment).
     *
     * @return table names in send order, one per message
     */
    public List<String> unconfirmedTables() {
        return unconfirmedTables;
    }
}
