package dev.sluice.write;

import io.grpc.Status;

/**
 * GreptimeDB's status codes, as carried in the {@code x-greptime-err-code} trailer, with the gRPC code the
 * server answers each with and whether the server marks it retryable.
 */
public enum StatusCode {
    /** 0. */
    Success(0, Status.Code.OK),
    /** 1000, message masked by the server. */
    Unknown(1000, Status.Code.UNKNOWN),
    /** 1001. */
    Unsupported(1001, Status.Code.UNIMPLEMENTED),
    /** 1002. */
    Unexpected(1002, Status.Code.INTERNAL),
    /** 1003, message masked by the server. */
    Internal(1003, Status.Code.INTERNAL),
    /** 1004: bad request data (type conflicts, unknown database on insert, malformed rows...). */
    InvalidArguments(1004, Status.Code.INVALID_ARGUMENT),
    /** 1005. */
    Cancelled(1005, Status.Code.CANCELLED),
    /** 1006. */
    IllegalState(1006, Status.Code.INTERNAL),
    /** 1007. */
    External(1007, Status.Code.UNKNOWN),
    /** 1008. */
    DeadlineExceeded(1008, Status.Code.DEADLINE_EXCEEDED),
    /** 1009. */
    Suspended(1009, Status.Code.RESOURCE_EXHAUSTED),
    /** 2000. */
    InvalidSyntax(2000, Status.Code.INVALID_ARGUMENT),
    /** 3000. */
    PlanQuery(3000, Status.Code.INTERNAL),
    /** 3001. */
    EngineExecuteQuery(3001, Status.Code.INTERNAL),
    /** 4000. */
    TableAlreadyExists(4000, Status.Code.ALREADY_EXISTS),
    /** 4001. */
    TableNotFound(4001, Status.Code.NOT_FOUND),
    /** 4002. */
    TableColumnNotFound(4002, Status.Code.NOT_FOUND),
    /** 4003. */
    TableColumnExists(4003, Status.Code.ALREADY_EXISTS),
    /** 4004. */
    DatabaseNotFound(4004, Status.Code.NOT_FOUND),
    /** 4005. */
    RegionNotFound(4005, Status.Code.NOT_FOUND),
    /** 4006. */
    RegionAlreadyExists(4006, Status.Code.ALREADY_EXISTS),
    /** 4007: region being migrated in a cluster. */
    RegionReadonly(4007, Status.Code.PERMISSION_DENIED),
    /** 4008. */
    RegionNotReady(4008, Status.Code.UNAVAILABLE),
    /** 4009. */
    RegionBusy(4009, Status.Code.RESOURCE_EXHAUSTED),
    /** 4010. */
    TableUnavailable(4010, Status.Code.UNAVAILABLE),
    /** 4011. */
    DatabaseAlreadyExists(4011, Status.Code.ALREADY_EXISTS),
    /** 5000: write buffer full or storage down. */
    StorageUnavailable(5000, Status.Code.UNAVAILABLE),
    /** 5001. */
    RequestOutdated(5001, Status.Code.INVALID_ARGUMENT),
    /** 6000. */
    RuntimeResourcesExhausted(6000, Status.Code.RESOURCE_EXHAUSTED),
    /** 6001: the server's in-flight limiter. */
    RateLimited(6001, Status.Code.RESOURCE_EXHAUSTED),
    /** 7000 (answered as NOT_FOUND). */
    UserNotFound(7000, Status.Code.NOT_FOUND),
    /** 7001. */
    UnsupportedPasswordType(7001, Status.Code.UNAUTHENTICATED),
    /** 7002. */
    UserPasswordMismatch(7002, Status.Code.UNAUTHENTICATED),
    /** 7003. */
    AuthHeaderNotFound(7003, Status.Code.UNAUTHENTICATED),
    /** 7004. */
    InvalidAuthHeader(7004, Status.Code.UNAUTHENTICATED),
    /** 7005. */
    AccessDenied(7005, Status.Code.PERMISSION_DENIED),
    /** 7006. */
    PermissionDenied(7006, Status.Code.PERMISSION_DENIED);

    private final int code;
    private final Status.Code grpcCode;

    StatusCode(int code, Status.Code grpcCode) {
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
     * Returns the gRPC status code the server answers with.
     *
     * @return the gRPC code
     */
    public Status.Code grpcCode() {
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
}
