package dev.sluice.write;

/**
 * What a failed write is about, so that a program decides what to do with one check: {@link #Data} (set the
 * rows aside, for example in a dead-letter queue, and go on), {@link #Setup} (stop: no row will pass until the
 * settings, credentials or tables are fixed) or {@link #Transient} (send the same rows again later). Read it with
 * {@link Err#kind()} or {@code WriteException.kind()}.
 *
 * <p>The kind follows from the status code, the server's retry hint and, for the one code GreptimeDB uses for
 * both bad rows and bad settings (1004 InvalidArguments), the message. The decision for every code is in
 * {@link #of(int, StatusCode.Grpc, boolean, String)}.
 */
public enum ErrorKind {
    /** The rows are at fault: the same rows fail again, other rows may pass. */
    Data,
    /** The settings are at fault (credentials, rights, database, table options, a missing table): no row passes. */
    Setup,
    /** The server or the network could not take the rows now; the same rows may pass later. */
    Transient;

    /**
     * The 1004 messages that name a setting, not a row, as GreptimeDB 1.2 words them: a write into a database that
     * does not exist ("Failed to find schema, schema info: db"), a table option it cannot parse ("Failed to parse
     * table option, key: ttl, value: x", src/table/src/error.rs), a region option it cannot read ("Invalid options:
     * provided string was not `true` or `false` ..." for {@code append_mode=yes}, "Invalid options: unknown variant
     * ..." for a {@code merge_mode} it lacks, "Invalid region options, merge_mode is not allowed when append_mode is
     * enabled": src/mito2/src/region/options.rs and src/mito2/src/error.rs), and the {@code auto_create_table} hint
     * read as a setting: a missing table it forbids to create ("Table `t` does not exist, and `auto_create_table`
     * hint is disabled") or a value that is not a boolean ("`auto_create_table` hint must be a boolean",
     * src/operator/src/insert.rs).
     */
    private static final String[] SETUP_MESSAGES = {
        "Failed to find schema", "Failed to parse table option", "Invalid options: ", "Invalid region options, ",
        "`auto_create_table` hint is disabled", "`auto_create_table` hint must be a boolean",
    };

    /**
     * Classifies a failure. The decisions, per GreptimeDB status code (the codes and the server's own retry list
     * are in GreptimeTeam/greptimedb {@code src/common/error/src/status_code.rs}):
     *
     * <ul>
     *   <li>Whatever the code: a failure the server or the client marks retryable is {@link #Transient}.</li>
     *   <li>{@link #Data}: 1000 Unknown and 1002 Unexpected (the server's answers to rows it cannot convert, for
     *       example a JSON value sent as {@code json_value} or an Arrow type unlike the column's), 1003 Internal
     *       (unless marked retryable), 1004 InvalidArguments (type conflicts, malformed rows, unknown columns, but
     *       see below), 2000 InvalidSyntax, 3000 PlanQuery, 3001 EngineExecuteQuery, 4002 TableColumnNotFound,
     *       4003 TableColumnExists.</li>
     *   <li>{@link #Setup}: 1001 Unsupported (the server cannot do what is asked, for any row), 4000
     *       TableAlreadyExists, 4001 TableNotFound (a table the write may not create, or a missing database on
     *       the bulk path), 4004 DatabaseNotFound, 4006 RegionAlreadyExists, 4011 DatabaseAlreadyExists, every
     *       7xxx code (credentials and rights), and 1004 whose message names a missing database ("Failed to find
     *       schema"), an unparsable table option ("Failed to parse table option", "Invalid options",
     *       "Invalid region options"), an {@code auto_create_table} hint that is not a boolean, or a missing table
     *       that may not be created ("`auto_create_table` hint is disabled").</li>
     *   <li>{@link #Transient}: 1005 Cancelled, 1006 IllegalState, 1007 External (object storage and other
     *       services the server depends on), 1008 DeadlineExceeded, 1009 Suspended, 4005 RegionNotFound and 4007
     *       RegionReadonly (a region moving between nodes), 4008 RegionNotReady, 4009 RegionBusy, 4010
     *       TableUnavailable, 5000 StorageUnavailable, 5001 RequestOutdated, 6000 RuntimeResourcesExhausted, 6001
     *       RateLimited.</li>
     *   <li>No code (-1, for failures of the transport or of the client itself, and for DoPut's authentication
     *       failures), 0, or a code this client does not know: by the gRPC status. UNAUTHENTICATED,
     *       PERMISSION_DENIED, UNIMPLEMENTED and NOT_FOUND are {@link #Setup}; UNAVAILABLE, RESOURCE_EXHAUSTED,
     *       DEADLINE_EXCEEDED, CANCELLED and ABORTED are {@link #Transient}; the rest (INVALID_ARGUMENT,
     *       OUT_OF_RANGE, INTERNAL...) are {@link #Data}.</li>
     * </ul>
     *
     * @param code the GreptimeDB status code, or -1 when there was none
     * @param grpc the gRPC status of the failed call
     * @param retryable whether sending the same data again may succeed (the server's hint, or the client's
     *     judgement)
     * @param message the server's or the transport's description, or null
     * @return the kind
     */
    public static ErrorKind of(int code, StatusCode.Grpc grpc, boolean retryable, String message) {
        if (retryable) {
            return Transient;
        }
        StatusCode c = StatusCode.of(code);
        if (c == null || c == StatusCode.Success) {
            return ofGrpc(grpc);
        }
        switch (c) {
            case InvalidArguments:
                return setupMessage(message) ? Setup : Data;
            case Unknown: case Unexpected: case Internal: case InvalidSyntax: case PlanQuery: case EngineExecuteQuery:
            case TableColumnNotFound: case TableColumnExists:
                return Data;
            case Unsupported: case TableAlreadyExists: case TableNotFound: case DatabaseNotFound:
            case RegionAlreadyExists: case DatabaseAlreadyExists:
            case UserNotFound: case UnsupportedPasswordType: case UserPasswordMismatch: case AuthHeaderNotFound:
            case InvalidAuthHeader: case AccessDenied: case PermissionDenied:
                return Setup;
            default:
                // Cancelled, IllegalState, External, DeadlineExceeded, Suspended, the region and table
                // availability codes 4005 and 4007-4010, StorageUnavailable, RequestOutdated, 6000, 6001.
                return Transient;
        }
    }

    private static ErrorKind ofGrpc(StatusCode.Grpc grpc) {
        if (grpc == null) {
            return Data;
        }
        switch (grpc) {
            case UNAUTHENTICATED: case PERMISSION_DENIED: case UNIMPLEMENTED: case NOT_FOUND:
                return Setup;
            case UNAVAILABLE: case RESOURCE_EXHAUSTED: case DEADLINE_EXCEEDED: case CANCELLED: case ABORTED:
                return Transient;
            default:
                return Data;
        }
    }

    private static boolean setupMessage(String message) {
        if (message == null) {
            return false;
        }
        for (String m : SETUP_MESSAGES) {
            if (message.contains(m)) {
                return true;
            }
        }
        return false;
    }
}
