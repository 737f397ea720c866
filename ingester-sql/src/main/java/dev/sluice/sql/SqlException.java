package dev.sluice.sql;

import java.io.IOException;

/** The HTTP SQL API could not be asked, or answered with an error. */
public final class SqlException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int code;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the endpoint or the statement
     * @param code GreptimeDB's status code, or -1 when the server did not answer with one
     * @param cause the transport's exception, or null
     */
    public SqlException(String message, int code, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /**
     * Returns GreptimeDB's status code ({@code 4001} table not found, {@code 7000}s authentication...).
     *
     * @return the code, or -1 when there was none (no connection, not GreptimeDB's answer)
     */
    public int code() {
        return code;
    }
}
