package dev.sluice.internal.transport;

import dev.sluice.AuthInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/**
 * Adds database and credentials to every call's metadata (Flight DoPut reads them only there), and the
 * call's hints when it has any. Callers never set these headers themselves.
 */
public final class HeaderInterceptor implements ClientInterceptor {
    /** Per-call hints, rendered as the {@code x-greptime-hints} value. */
    public static final CallOptions.Key<String> HINTS = CallOptions.Key.create("sluice-hints");

    static final Metadata.Key<String> DB_NAME = Metadata.Key.of("x-greptime-db-name", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> AUTH = Metadata.Key.of("x-greptime-auth", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> HINTS_HEADER = Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER);

    /**
     * Renders hints as the {@code x-greptime-hints} header value.
     *
     * @param hints the hints, in order
     * @return {@code k=v,k=v}, or an empty string when there are none
     */
    public static String hintsHeader(java.util.Map<String, String> hints) {
        StringBuilder sb = new StringBuilder();
        for (java.util.Map.Entry<String, String> e : hints.entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }

    private final String database;
    private final String auth;

    /**
     * Creates the interceptor.
     *
     * @param database the database name
     * @param authInfo credentials, or null
     */
    public HeaderInterceptor(String database, AuthInfo authInfo) {
        this.database = database;
        this.auth = authInfo == null ? null : "Basic " + java.util.Base64.getEncoder().encodeToString(
                (authInfo.username() + ":" + authInfo.password()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
                                                               CallOptions options, Channel next) {
        String hints = options.getOption(HINTS);
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<RespT> listener, Metadata headers) {
                headers.put(DB_NAME, database);
                if (auth != null) {
                    headers.put(AUTH, auth);
                }
                if (hints != null && !hints.isEmpty()) {
                    headers.put(HINTS_HEADER, hints);
                }
                super.start(listener, headers);
            }
        };
    }
}
