package dev.sluice.write;

import java.util.List;
import java.util.Optional;

/**
 * A write that failed, with what the server (or the transport) said.
 *
 * @param code the GreptimeDB status code from the {@code x-greptime-err-code} trailer, or -1 when there was
 *     none (transport failures, deadlines, servers that omit it)
 * @param grpcCode the status of the failed gRPC call
 * @param message the server's description, or the transport's
 * @param retryable whether sending the same data again may succeed: the server's retry hint when it sent
 *     one, else judged from the gRPC code (UNAVAILABLE and RESOURCE_EXHAUSTED are)
 * @param tables the tables the failed request addressed; some of them may have been written (GreptimeDB is not
 *     transactional across tables)
 * @param cause the underlying exception, or null
 */
public record Err(int code, StatusCode.Grpc grpcCode, String message, boolean retryable, List<String> tables,
                  Throwable cause) {
    /** Copies the table list. */
    public Err {
        tables = List.copyOf(tables);
    }

    /**
     * The error of a write the client refused itself, before sending it, by one of its rules: a value that does not
     * fit its column ({@link dev.sluice.data.InvalidDataException}, {@link ErrorKind#Data}), or a table the write
     * cannot carry, such as a column type its path does not carry ({@link ErrorKind#Setup}, gRPC
     * {@code UNIMPLEMENTED}). Never retryable: the same write is refused again, and the server was not asked.
     *
     * @param refusal the client's refusal, whose message names what to change
     * @param tables the tables of the refused write
     * @return the error, code -1
     */
    public static Err refusedByClient(IllegalArgumentException refusal, List<String> tables) {
        StatusCode.Grpc grpc = refusal instanceof dev.sluice.data.InvalidDataException
                ? StatusCode.Grpc.INVALID_ARGUMENT : StatusCode.Grpc.UNIMPLEMENTED;
        return new Err(-1, grpc, String.valueOf(refusal.getMessage()), false, tables, refusal);
    }

    /**
     * Returns the status code as a constant.
     *
     * @return the constant, or null when the code is -1 or unknown to this client
     */
    public StatusCode statusCode() {
        return StatusCode.of(code);
    }

    /**
     * Tells what the failure is about: the rows ({@link ErrorKind#Data}), the settings ({@link ErrorKind#Setup})
     * or a passing condition ({@link ErrorKind#Transient}). See {@link ErrorKind#of(int, StatusCode.Grpc, boolean,
     * String)} for the decision per code.
     *
     * @return the kind
     */
    public ErrorKind kind() {
        return ErrorKind.of(code, grpcCode, retryable, message);
    }

    /**
     * Returns the column the server's message names, when it names one (for example {@code f0} in
     * "column f0 expect type Float64(Float64Type), given: INT64(4)").
     *
     * @return the column, or empty when the message names none
     */
    public Optional<String> column() {
        return RefusalColumn.in(message);
    }

    /**
     * Names the column a message names only by its position ("... at column index 1", as GreptimeDB answers a
     * bulk batch whose column is typed otherwise than the table), so that {@link #column()} returns its name.
     *
     * @param columns the refused request's column names, in the order the server numbered them
     * @return an error whose message adds the column's name, or this error when its message names a column
     *     already, names no position, or one outside {@code columns}
     */
    public Err namingColumnAtIndex(List<String> columns) {
        if (column().isPresent()) {
            return this;
        }
        java.util.OptionalInt index = RefusalColumn.index(message);
        if (index.isEmpty() || index.getAsInt() >= columns.size()) {
            return this;
        }
        return new Err(code, grpcCode, message + " (column `" + columns.get(index.getAsInt()) + "`)", retryable,
                tables, cause);
    }

    /**
     * Describes the error with its cause: the underlying exception and, when that wraps another, the root
     * cause (for a transport failure, what the operating system said).
     *
     * @return the description
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Err{code=").append(code).append(", grpc=").append(grpcCode)
                .append(", retryable=").append(retryable).append(", tables=").append(tables)
                .append(", message=").append(message);
        if (cause != null) {
            b.append(", cause=").append(cause);
            Throwable root = cause;
            for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
                root = root.getCause();
            }
            if (root != cause) {
                b.append(", root cause=").append(root);
            }
        }
        return b.append('}').toString();
    }
}
