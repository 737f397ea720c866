package dev.sluice.write;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings: GreptimeDB hints and wire compression. Immutable; each {@code with...} returns a copy.
 *
 * <p>Hints travel in the {@code x-greptime-hints} header on regular and stream writes. Useful keys:
 * {@code ttl} (e.g. {@code 7d}), {@code append_mode} ({@code true} keeps duplicate rows),
 * {@code merge_mode} ({@code last_row} / {@code last_non_null}), {@code auto_create_table} ({@code false}
 * refuses to create tables or columns), and table options such as {@code compaction.twcs.time_window}.
 * Table options only take effect when the write creates the table. Values cannot contain commas.
 */
public final class Context {
    private static final Context DEFAULT = new Context(Map.of(), Compression.None, null);

    private final Map<String, String> hints;
    private final Compression compression;
    private final RetryPolicy retryPolicy;

    private Context(Map<String, String> hints, Compression compression, RetryPolicy retryPolicy) {
        this.hints = hints;
        this.compression = compression;
        this.retryPolicy = retryPolicy;
    }

    /**
     * Returns the context with no hints and no compression.
     *
     * @return the default context
     */
    public static Context newDefault() {
        return DEFAULT;
    }

    /**
     * Adds or replaces a hint.
     *
     * @param key hint name, e.g. {@code ttl}
     * @param value hint value; no commas
     * @return a new context
     * @throws IllegalArgumentException when key or value is empty or holds a character the header cannot carry
     */
    public Context withHint(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.isBlank() || key.contains(",") || key.contains("=")) {
            throw new IllegalArgumentException("hint key must be non-empty without ',' or '=': '" + key + "'");
        }
        if (value.contains(",")) {
            throw new IllegalArgumentException("hint '" + key + "' value cannot contain ',': '" + value + "'");
        }
        Map<String, String> next = new LinkedHashMap<>(hints);
        next.put(key.trim(), value.trim());
        return new Context(Collections.unmodifiableMap(next), compression, retryPolicy);
    }

    /**
     * Sets the wire compression.
     *
     * @param compression the compression
     * @return a new context
     */
    public Context withCompression(Compression compression) {
        return new Context(hints, Objects.requireNonNull(compression, "compression"), retryPolicy);
    }

    /**
     * Overrides the client's retry policy for calls made with this context.
     *
     * @param policy the policy
     * @return a new context
     */
    public Context withRetryPolicy(RetryPolicy policy) {
        return new Context(hints, compression, Objects.requireNonNull(policy, "policy"));
    }

    /**
     * Returns the retry policy override.
     *
     * @return the policy, or null to use the client's
     */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /**
     * Tells whether the hints put the written table in append mode (resends would duplicate rows).
     *
     * @return true for {@code append_mode=true}
     */
    public boolean appendMode() {
        return "true".equalsIgnoreCase(hints.get("append_mode"));
    }

    /**
     * Returns the hints.
     *
     * @return an unmodifiable map, in insertion order
     */
    public Map<String, String> hints() {
        return hints;
    }

    /**
     * Returns the compression.
     *
     * @return the compression
     */
    public Compression compression() {
        return compression;
    }

    /**
     * Renders the hints as the {@code x-greptime-hints} header value.
     *
     * @return {@code k=v,k=v}, or an empty string when there are none
     */
    public String hintsHeader() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : hints.entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Context{hints=" + hints + ", compression=" + compression
                + (retryPolicy != null ? ", retryPolicy=" + retryPolicy : "") + '}';
    }
}
