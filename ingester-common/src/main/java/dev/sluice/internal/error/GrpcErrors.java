package dev.sluice.internal.error;

import dev.sluice.Err;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.List;

/** Turns what the server or transport said into an {@link Err}. */
public final class GrpcErrors {
    private static final Metadata.Key<String> ERR_CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> RETRY_HINT = Metadata.Key.of("x-greptime-err-retry-hint", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> ERR_MSG = Metadata.Key.of("x-greptime-err-msg", Metadata.ASCII_STRING_MARSHALLER);

    private GrpcErrors() {
    }

    /**
     * Reads a failed call: the {@code x-greptime-err-code} and {@code x-greptime-err-retry-hint} trailers when
     * present, else the gRPC code alone.
     *
     * @param t the failure
     * @param tables the tables the call addressed
     * @return the error
     */
    public static Err fromThrowable(Throwable t, List<String> tables) {
        Status status = Status.fromThrowable(t);
        Metadata trailers = Status.trailersFromThrowable(t);
        int code = -1;
        Boolean hint = null;
        String message = status.getDescription();
        if (trailers != null) {
            String c = trailers.get(ERR_CODE);
            if (c != null) {
                try {
                    code = Integer.parseInt(c.trim());
                } catch (NumberFormatException ignored) {
                    code = -1;
                }
            }
            String h = trailers.get(RETRY_HINT);
            if (h != null) {
                hint = h.trim().equalsIgnoreCase("retryable");
            }
            String m = trailers.get(ERR_MSG);
            if ((message == null || message.isEmpty()) && m != null) {
                message = m;
            }
        }
        if (message == null || message.isEmpty()) {
            message = status.getCause() != null ? String.valueOf(status.getCause()) : status.getCode().toString();
        }
        boolean retryable = hint != null ? hint : retryableByCode(status.getCode());
        return new Err(code, status.getCode(), message, retryable, tables, t);
    }

    /**
     * Judges a gRPC code when the server sent no hint: transient unavailability and overload are retryable.
     *
     * @param code the gRPC code
     * @return true for UNAVAILABLE and RESOURCE_EXHAUSTED
     */
    public static boolean retryableByCode(Status.Code code) {
        return code == Status.Code.UNAVAILABLE || code == Status.Code.RESOURCE_EXHAUSTED;
    }

    /**
     * An error raised by the client itself (nothing or not everything reached the server).
     *
     * @param grpc the closest gRPC code
     * @param message what happened
     * @param retryable whether trying again may help
     * @param tables the tables concerned
     * @return the error
     */
    public static Err local(Status.Code grpc, String message, boolean retryable, List<String> tables) {
        return new Err(-1, grpc, message, retryable, tables, null);
    }
}
