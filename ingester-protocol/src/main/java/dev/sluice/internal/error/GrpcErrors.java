package dev.sluice.internal.error;

import dev.sluice.write.StatusCode;
import dev.sluice.write.Err;
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
        return fromThrowable(t, tables, null);
    }

    /**
     * Reads a failed call made to a known endpoint: as {@link #fromThrowable(Throwable, List)}, and when the
     * transport failed before the server could answer (nothing listening, unknown host, a peer that does not
     * speak gRPC) the message names the endpoint and the root cause, with what to check.
     *
     * @param t the failure
     * @param tables the tables the call addressed
     * @param endpoint the {@code host:port} the call went to, or null when unknown (then it is read from the
     *     cause where the transport names it)
     * @return the error
     */
    public static Err fromThrowable(Throwable t, List<String> tables, String endpoint) {
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
        if (code < 0) {
            String transport = transportDetail(t, endpoint);
            if (transport != null) {
                message = transport;
            }
        }
        StatusCode.Grpc grpc = StatusCode.Grpc.of(status.getCode().value());
        if (grpc == StatusCode.Grpc.DEADLINE_EXCEEDED && code < 0 && endpoint != null && !message.contains(endpoint)) {
            // gRPC's own deadline messages name no endpoint ("deadline exceeded after ...", "ClientCall started
            // after CallOptions deadline was exceeded ..."): say which one gave no answer in time.
            message = "no answer from " + endpoint + " within the call's deadline (" + message + ")";
        }
        if (grpc == StatusCode.Grpc.OUT_OF_RANGE && code < 0 && message.contains("message length too large")) {
            // The server's gRPC refused a message over its receive limit ("decoded message length too large",
            // grpc-java's MessageDeframer; GreptimeDB sets it from grpc.max_recv_message_size).
            message = message + "; send smaller requests or batches (fewer rows each), or raise the server's"
                    + " grpc.max_recv_message_size";
        }
        if (grpc == StatusCode.Grpc.UNKNOWN && code < 0 && closedConnection(status.getCause())) {
            // grpc-netty fails a write on a connection that has just closed with UNKNOWN "Channel closed but for
            // unknown reason" when it does not know why yet (NettyClientTransport.statusFromFailedFuture): a lost
            // connection, which it reports as UNAVAILABLE once it does.
            grpc = StatusCode.Grpc.UNAVAILABLE;
        }
        boolean retryable = retryable(code, hint, grpc) || memoryLimited(grpc, message);
        return new Err(code, grpc, message, retryable, tables, t);
    }

    /**
     * Says what a transport failure was, from its root cause: the endpoint, the cause, and what to check.
     *
     * @param t the failure
     * @param endpoint {@code host:port}, or null to read it from the cause
     * @return the description, or null when the cause is none of the known transport failures
     */
    static String transportDetail(Throwable t, String endpoint) {
        Throwable root = null;
        int depth = 0;
        java.net.ConnectException connect = null;
        java.net.UnknownHostException unknownHost = null;
        Throwable http2 = null;
        Throwable tls = null;
        for (Throwable c = t; c != null && c != root && depth++ < 16; c = c.getCause()) {
            root = c;
            if (tls == null && c instanceof javax.net.ssl.SSLException) {
                tls = c;
            }
            if (connect == null && c instanceof java.net.ConnectException) {
                connect = (java.net.ConnectException) c;
            } else if (unknownHost == null && c instanceof java.net.UnknownHostException) {
                unknownHost = (java.net.UnknownHostException) c;
            } else if (http2 == null && c.getClass().getSimpleName().equals("Http2Exception")) {
                http2 = c;
            }
        }
        String rootText = root == null ? "" : root.getClass().getSimpleName() + ": " + root.getMessage();
        if (connect != null) {
            String where = endpoint != null ? endpoint : addressIn(connect.getMessage());
            String text = String.valueOf(connect.getMessage());
            if (text.contains("refused")) {
                return "connection refused to " + where + ": nothing listens there (is GreptimeDB running, and is"
                        + " this its gRPC port? it is 4001 by default)";
            }
            return "could not connect to " + where + " (" + rootText + ")";
        }
        if (unknownHost != null) {
            return "cannot resolve the host of endpoint " + (endpoint != null ? endpoint : unknownHost.getMessage())
                    + " (" + rootText + ")";
        }
        Status status = Status.fromThrowable(t);
        String description = status.getDescription() == null ? "" : status.getDescription();
        if (tls != null) {
            String where = endpoint != null ? endpoint : "the endpoint";
            return "the TLS handshake with " + where + " failed (" + tls.getClass().getSimpleName() + ": "
                    + tls.getMessage() + "): does " + where + " serve TLS, and does the client trust its certificate?"
                    + " For a plaintext server leave GreptimeOptions.tls unset";
        }
        if (endpoint != null && description.contains("Network closed for unknown reason")) {
            return "the connection to " + endpoint + " closed before the server answered (" + description + ")";
        }
        // The peer answered the HTTP/2 preface with something else (an HTTP/1 server answers "HTTP/..."), or
        // answered the call as a plain HTTP server would.
        boolean notGrpc = (http2 != null && String.valueOf(http2.getMessage()).startsWith("First received frame was not"))
                || description.contains("invalid content-type") || description.startsWith("HTTP status code");
        if (notGrpc) {
            String where = endpoint != null ? endpoint : "the endpoint";
            return "the server at " + where + " does not answer as a gRPC server (" + (http2 != null ? rootText
                    : description) + "): is " + where + " GreptimeDB's HTTP port (4000 by default)? the gRPC port is"
                    + " 4001 by default";
        }
        return null;
    }

    /** The {@code host:port} at the end of a transport's connect message ("...: /127.0.0.1:4001"), or a stand-in. */
    private static String addressIn(String message) {
        if (message != null) {
            int at = message.lastIndexOf(": ");
            if (at >= 0) {
                String address = message.substring(at + 2).trim();
                int slash = address.indexOf('/');
                address = slash >= 0 ? address.substring(slash + 1) : address;
                if (address.lastIndexOf(':') > 0) {
                    return address;
                }
            }
        }
        return "the endpoint";
    }

    /** Whether a local cause chain holds the transport's "connection closed" exception. */
    private static boolean closedConnection(Throwable cause) {
        for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
            if (cause instanceof java.nio.channels.ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The server's DoPut refuses a batch it has no memory for as INVALID_ARGUMENT "Request memory limit exceeded"
     * (the original code is lost on that path): it is overload, not bad data, so sending again later may pass.
     *
     * @param grpc the gRPC code
     * @param message the status description
     * @return true for that rejection
     */
    static boolean memoryLimited(StatusCode.Grpc grpc, String message) {
        return grpc == StatusCode.Grpc.INVALID_ARGUMENT && message != null && message.contains("Request memory limit exceeded");
    }

    /**
     * Decides whether a failure may succeed when sent again. Invalid data, missing tables, columns and databases,
     * auth failures and oversized requests never do; region migration (4007) does; otherwise the server's hint
     * decides when present, else the gRPC code: UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED and
     * CANCELLED do (the last two may have been committed: callers skip them for append-mode tables).
     *
     * @param code the GreptimeDB code or -1
     * @param hint the retry-hint trailer, or null
     * @param grpc the gRPC code
     * @return true when retrying may help
     */
    public static boolean retryable(int code, Boolean hint, StatusCode.Grpc grpc) {
        if (code == 1001 || code == 1004 || code == 2000 || code == 4001 || code == 4002 || code == 4004
                || (code >= 7000 && code < 8000) || grpc == StatusCode.Grpc.OUT_OF_RANGE
                || grpc == StatusCode.Grpc.UNAUTHENTICATED || grpc == StatusCode.Grpc.INVALID_ARGUMENT) {
            return false;
        }
        if (code == 4007) {
            return true;
        }
        if (hint != null) {
            return hint;
        }
        return grpc == StatusCode.Grpc.UNAVAILABLE || grpc == StatusCode.Grpc.RESOURCE_EXHAUSTED
                || grpc == StatusCode.Grpc.DEADLINE_EXCEEDED || grpc == StatusCode.Grpc.CANCELLED;
    }

    /**
     * Tells whether a failure may have left the request committed on the server (so a resend could duplicate).
     *
     * @param err the failure
     * @return true for deadlines and cancellations
     */
    public static boolean maybeCommitted(Err err) {
        return err.grpcCode() == StatusCode.Grpc.DEADLINE_EXCEEDED || err.grpcCode() == StatusCode.Grpc.CANCELLED;
    }

    /**
     * Tells whether a failure is the transport's (the endpoint, not the request, is at fault).
     *
     * @param err the failure
     * @return true for UNAVAILABLE without a GreptimeDB code
     */
    public static boolean transportFailure(Err err) {
        return err.code() < 0 && err.grpcCode() == StatusCode.Grpc.UNAVAILABLE;
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
    public static Err local(StatusCode.Grpc grpc, String message, boolean retryable, List<String> tables) {
        return new Err(-1, grpc, message, retryable, tables, null);
    }
}
