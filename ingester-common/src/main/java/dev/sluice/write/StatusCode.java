package dev.sluice.write;

/**
 * GreptimeDB's status codes, as carried in the {@code x-greptime-err-code} trailer, with the transport status
 * ({@link Grpc}) the server answers each with and whether the server marks it retryable.
 */
public enum StatusCode {
    /** 0. */
    Success(0, Grpc.OK),
    /** 1000, message masked by the server. */
    Unknown(1000, Grpc.UNKNOWN),
    /** 1001. */
    Unsupported(1001, Grpc.UNIMPLEMENTED),
    /** 1002. */
    Unexpected(1002, Grpc.INTERNAL),
    /** 1003, message masked by the server. */
    Internal(1003, Grpc.INTERNAL),
    /** 1004: bad request data (type conflicts, unknown database on insert, malformed rows...). */
    InvalidArguments(1004, Grpc.INVALID_ARGUMENT),
    /** 1005. */
    Cancelled(1005, Grpc.CANCELLED),
    /** 1006. */
    IllegalState(1006, Grpc.INTERNAL),
    /** 1007. */
    External(1007, Grpc.UNKNOWN),
    /** 1008. */
    DeadlineExceeded(1008, Grpc.DEADLINE_EXCEEDED),
    /** 1009. */
    Suspended(1009, Grpc.RESOURCE_EXHAUSTED),
    /** 2000. */
    InvalidSyntax(2000, Grpc.INVALID_ARGUMENT),
    /** 3000. */
    PlanQuery(3000, Grpc.INTERNAL),
    /** 3001. */
    EngineExecuteQuery(3001, Grpc.INTERNAL),
    /** 4000. */
    TableAlreadyExists(4000, Grpc.ALREADY_EXISTS),
    /** 4001. */
    TableNotFound(4001, Grpc.NOT_FOUND),
    /** 4002. */
    TableColumnNotFound(4002, Grpc.NOT_FOUND),
    /** 4003. */
    TableColumnExists(4003, Grpc.ALREADY_EXISTS),
    /** 4004. */
    DatabaseNotFound(4004, Grpc.NOT_FOUND),
    /** 4005. */
    RegionNotFound(4005, Grpc.NOT_FOUND),
    /** 4006. */
    RegionAlreadyExists(4006, Grpc.ALREADY_EXISTS),
    /** 4007: region being migrated in a cluster. */
    RegionReadonly(4007, Grpc.PERMISSION_DENIED),
    /** 4008. */
    RegionNotReady(4008, Grpc.UNAVAILABLE),
    /** 4009. */
    RegionBusy(4009, Grpc.RESOURCE_EXHAUSTED),
    /** 4010. */
    TableUnavailable(4010, Grpc.UNAVAILABLE),
    /** 4011. */
    DatabaseAlreadyExists(4011, Grpc.ALREADY_EXISTS),
    /** 5000: write buffer full or storage down. */
    StorageUnavailable(5000, Grpc.UNAVAILABLE),
    /** 5001. */
    RequestOutdated(5001, Grpc.INVALID_ARGUMENT),
    /** 6000. */
    RuntimeResourcesExhausted(6000, Grpc.RESOURCE_EXHAUSTED),
    /** 6001: the server's in-flight limiter. */
    RateLimited(6001, Grpc.RESOURCE_EXHAUSTED),
    /** 7000 (answered as NOT_FOUND). */
    UserNotFound(7000, Grpc.NOT_FOUND),
    /** 7001. */
    UnsupportedPasswordType(7001, Grpc.UNAUTHENTICATED),
    /** 7002. */
    UserPasswordMismatch(7002, Grpc.UNAUTHENTICATED),
    /** 7003. */
    AuthHeaderNotFound(7003, Grpc.UNAUTHENTICATED),
    /** 7004. */
    InvalidAuthHeader(7004, Grpc.UNAUTHENTICATED),
    /** 7005. */
    AccessDenied(7005, Grpc.PERMISSION_DENIED),
    /** 7006. */
    PermissionDenied(7006, Grpc.PERMISSION_DENIED);

    private final int code;
    private final Grpc grpcCode;

    StatusCode(int code, Grpc grpcCode) {
        this.code = code;
        this.grpcCode = grpcCode;
    }

    /**
     * Returns the numeric code.
     *
     * @return the code as GreptimeDB numbers it
     */
    public int code() {
        return code;
    }

    /**
     * Returns the transport status the server answers with.
     *
     * @return the gRPC status
     */
    public Grpc grpcCode() {
        return grpcCode;
    }

    /**
     * Tells whether the server marks this code retryable in its retry-hint trailer.
     *
     * @return true for transient overload and unavailability codes
     */
    public boolean serverRetryable() {
        switch (this) {
            case RegionNotReady: case RegionBusy: case TableUnavailable: case StorageUnavailable:
            case RuntimeResourcesExhausted: case RateLimited:
                return true;
            default:
                return false;
        }
    }

    /**
     * Finds a code by number.
     *
     * @param code a GreptimeDB status code
     * @return the matching constant, or null for a number this client does not know
     */
    public static StatusCode of(int code) {
        for (StatusCode s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }

    /**
     * The status of the gRPC call that carried a write, for failures with or without a GreptimeDB code
     * (transport failures, deadlines, servers that send no code). The constants and numbers are gRPC's.
     */
    public enum Grpc {
        /** 0: the call succeeded. */
        OK,
        /** 1: cancelled, typically by the caller or a closing client. */
        CANCELLED,
        /** 2: an error with no better status. */
        UNKNOWN,
        /** 3: the request is invalid; sending it again fails again. */
        INVALID_ARGUMENT,
        /** 4: the deadline passed; the write may still have been committed. */
        DEADLINE_EXCEEDED,
        /** 5: a table, database or user was not found. */
        NOT_FOUND,
        /** 6: what the request creates exists already. */
        ALREADY_EXISTS,
        /** 7: the caller may not do this. */
        PERMISSION_DENIED,
        /** 8: a limit of the server or the client was reached; trying again later may pass. */
        RESOURCE_EXHAUSTED,
        /** 9: the system is not in a state to do this. */
        FAILED_PRECONDITION,
        /** 10: aborted. */
        ABORTED,
        /** 11: a value or message is out of range (for example over the server's message size limit). */
        OUT_OF_RANGE,
        /** 12: not implemented by the server. */
        UNIMPLEMENTED,
        /** 13: an internal error of the server. */
        INTERNAL,
        /** 14: the server or the connection is unavailable; trying again may pass. */
        UNAVAILABLE,
        /** 15: data was lost. */
        DATA_LOSS,
        /** 16: missing or wrong credentials. */
        UNAUTHENTICATED;

        private static final Grpc[] BY_VALUE = values();

        /**
         * Returns gRPC's number for this status.
         *
         * @return 0..16
         */
        public int value() {
            return ordinal();
        }

        /**
         * Finds a status by gRPC's number.
         *
         * @param value 0..16
         * @return the status, UNKNOWN for a number outside gRPC's range
         */
        public static Grpc of(int value) {
            return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : UNKNOWN;
        }
    }
}
