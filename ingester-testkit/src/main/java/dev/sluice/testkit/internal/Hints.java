package dev.sluice.testkit.internal;

import dev.sluice.StatusCode;
import io.grpc.Metadata;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads hints from request metadata as GreptimeDB does. */
public final class Hints {
    private static final String PREFIX = "x-greptime-hint-";
    private static final Metadata.Key<String> HINTS = Metadata.Key.of("x-greptime-hints", Metadata.ASCII_STRING_MARSHALLER);

    private Hints() {
    }

    /**
     * Parses {@code x-greptime-hints} ({@code k=v,k=v}, split on ',' then the first '=', trimmed), which wins
     * over the older one-header-per-hint {@code x-greptime-hint-<key>} form.
     *
     * @param md the request metadata
     * @return the hints, in order
     */
    public static Map<String, String> parse(Metadata md) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String key : md.keys()) {
            if (key.startsWith(PREFIX) && !key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                String v = md.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
                if (v != null) {
                    out.put(key.substring(PREFIX.length()).trim(), v.trim());
                }
            }
        }
        String all = md.get(HINTS);
        if (all != null) {
            for (String part : all.split(",")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                    out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * Reads {@code auto_create_table}: absent means true; anything but exactly true/false is an error.
     *
     * @param hints parsed hints
     * @return whether tables and columns may be created
     */
    public static boolean autoCreate(Map<String, String> hints) {
        String v = hints.get("auto_create_table");
        if (v == null || v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw new ServerError(StatusCode.InvalidArguments, "Invalid value for hint auto_create_table: " + v);
    }
}
