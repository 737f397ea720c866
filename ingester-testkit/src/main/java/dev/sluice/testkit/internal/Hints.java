package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
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

    /** Hints that steer the write and are not stored as table options. */
    private static final java.util.Set<String> NOT_TABLE_OPTIONS = java.util.Set.of("auto_create_table",
            "physical_table", "read_preference", "query_timeout");

    /**
     * The table options a creating write's hints (or a DDL's options) give the new table: every hint but the
     * request-only ones, with {@code ttl} checked and stored normalised as the server does.
     *
     * @param hints hints or DDL options
     * @return the options to store
     * @throws ServerError 1004 {@code Failed to parse table option, key: ttl, value: <v>} for a bad ttl
     */
    public static Map<String, String> tableOptions(Map<String, String> hints) {
        Map<String, String> out = new LinkedHashMap<>();
        hints.forEach((k, v) -> {
            if (!NOT_TABLE_OPTIONS.contains(k)) {
                out.put(k, k.equals("ttl") ? Ttl.normalise(v) : v);
            }
        });
        checkRegionOptions(out);
        return out;
    }

    /**
     * The region's own reading of its options (src/mito2/src/region/options.rs, {@code RegionOptions::try_from} and
     * {@code validate}), which fails the create before any table exists. The options are read as one JSON object, in
     * order: {@code append_mode} with Rust's bool {@code FromStr} (exactly {@code true} or {@code false}),
     * {@code merge_mode} with the enum's {@code FromStr} ({@code last_row} or {@code last_non_null}; empty means
     * unset); then a merge mode with append mode on is refused. All are InvalidArguments (1004), worded as the
     * server's {@code output_msg} renders mito's {@code JsonOptions} ("Invalid options: " and serde_json's message
     * with its position) and {@code InvalidRegionOptions} errors (src/mito2/src/error.rs).
     */
    private static void checkRegionOptions(Map<String, String> options) {
        int column = 1;
        for (Map.Entry<String, String> e : options.entrySet()) {
            // serde_json reports the column of the value's closing quote in {"key":"value",...}.
            column += (column > 1 ? 1 : 0) + e.getKey().length() + 3 + e.getValue().length() + 2;
            String v = e.getValue();
            String why = null;
            if (e.getKey().equals("append_mode") && !v.equals("true") && !v.equals("false")) {
                why = "provided string was not `true` or `false`";
            } else if (e.getKey().equals("merge_mode") && mergeSet(v) && !v.equals("last_row")
                    && !v.equals("last_non_null")) {
                why = "Matching variant not found";
            }
            if (why != null) {
                throw new ServerError(StatusCode.InvalidArguments, "Invalid options: " + why + " at line 1 column "
                        + column);
            }
        }
        if (mergeSet(options.get("merge_mode")) && "true".equals(options.get("append_mode"))) {
            throw new ServerError(StatusCode.InvalidArguments,
                    "Invalid region options, merge_mode is not allowed when append_mode is enabled");
        }
    }

    private static boolean mergeSet(String merge) {
        return merge != null && !merge.isEmpty() && !merge.equalsIgnoreCase("null");
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
        // As src/operator/src/insert.rs words it.
        throw new ServerError(StatusCode.InvalidArguments,
                "Invalid InsertRequest, reason: `auto_create_table` hint must be a boolean");
    }
}
