package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** A failure answered the way GreptimeDB answers it: a gRPC status plus the {@code x-greptime-err-*} trailers. */
public final class ServerError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** Trailer carrying the numeric GreptimeDB status code. */
    public static final Metadata.Key<String> ERR_CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);
    /** Trailer carrying {@code retryable} or {@code non_retryable}. */
    public static final Metadata.Key<String> RETRY_HINT = Metadata.Key.of("x-greptime-err-retry-hint", Metadata.ASCII_STRING_MARSHALLER);

    private final StatusCode code;
    private final Boolean retryable;
    private final boolean trailers;

    /**
     * Creates an error with the server's own retry judgement for the code.
     *
     * @param code the status code
     * @param message the description
     */
    public ServerError(StatusCode code, String message) {
        this(code, message, null);
    }

    /**
     * Creates an error.
     *
     * @param code the status code
     * @param message the description
     * @param retryable the retry hint to send, or null for the code's usual one
     */
    public ServerError(StatusCode code, String message, Boolean retryable) {
        this(code, message, retryable, true);
    }

    private ServerError(StatusCode code, String message, Boolean retryable, boolean trailers) {
        super(message, null, false, false);
        this.code = code;
        this.retryable = retryable;
        this.trailers = trailers;
    }

    /**
     * Creates an error the server answers without its {@code x-greptime-err-*} trailers (answers that do not go
     * through its error conversion, such as a gRPC query's UNIMPLEMENTED or DoPut's "auth failed").
     *
     * @param code the status code (its gRPC code is used)
     * @param message the description
     * @return the error
     */
    public static ServerError withoutTrailers(StatusCode code, String message) {
        return new ServerError(code, message, null, false);
    }

    /**
     * Returns the status code.
     *
     * @return the code
     */
    public StatusCode code() {
        return code;
    }

    /**
     * Renders the gRPC status with trailers.
     *
     * @return the exception to hand to a response observer
     */
    public StatusRuntimeException toStatus() {
        if (!this.trailers) {
            return Status.fromCodeValue(code.grpcCode().value()).withDescription(getMessage()).asRuntimeException();
        }
        Metadata trailers = new Metadata();
        trailers.put(ERR_CODE, Integer.toString(code.code()));
        boolean retry = retryable != null ? retryable : code.serverRetryable();
        trailers.put(RETRY_HINT, retry ? "retryable" : "non_retryable");
        String description = code == StatusCode.Unknown || code == StatusCode.Internal
                ? "Internal error: " + code.code() : getMessage();
        return Status.fromCodeValue(code.grpcCode().value()).withDescription(description).asRuntimeException(trailers);
    }
}
