package dev.sluice.write;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings: GreptimeDB hints, wire compression and a retry policy override. Immutable; build one with
 * {@link #newBuilder()}, change one with {@link #toBuilder()}.
 *
 * <pre>{@code
 * Context ctx = Context.newBuilder().hint("ttl", "7d").compression(Compression.Zstd).build();
 * }</pre>
 *
 * <p>Hints travel in the {@code x-greptime-hints} header on regular and stream writes. Useful keys:
 * {@code ttl} (e.g. {@code 7d}), {@code append_mode} ({@code true} keeps duplicate rows),
 * {@code merge_mode} ({@code last_row} / {@code last_non_null}), {@code auto_create_table} ({@code false}
 * refuses to create tables or columns), and table options such as {@code compaction.twcs.time_window}.
 * Table options only take effect when the write creates the table. Values cannot contain commas.
 */
public final class Context {
    private static final Context EMPTY = new Context(Map.of(), Compression.None, null);

    private final Map<String, String> hints;
    private final Compression compression;
    private final RetryPolicy retryPolicy;

    private Context(Map<String, String> hints, Compression compression, RetryPolicy retryPolicy) {
        this.hints = hints;
        this.compression = compression;
        this.retryPolicy = retryPolicy;
    }

    /**
     * Starts a context with no hints, no compression and the client's retry policy.
     *
     * @return a builder
     */
    public static Builder newBuilder() {
        return new Builder(EMPTY);
    }

    /**
     * Starts a builder holding this context's values.
     *
     * @return a builder
     */
    public Builder toBuilder() {
        return new Builder(this);
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Context c && c.hints.equals(hints) && c.compression == compression
                && Objects.equals(c.retryPolicy, retryPolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(hints, compression, retryPolicy);
    }

    @Override
    public String toString() {
        return "Context{hints=" + hints + ", compression=" + compression
                + (retryPolicy != null ? ", retryPolicy=" + retryPolicy : "") + '}';
    }

    /** Builder for {@link Context}. */
    public static final class Builder {
        private final Map<String, String> hints;
        private Compression compression;
        private RetryPolicy retryPolicy;

        private Builder(Context from) {
            this.hints = new LinkedHashMap<>(from.hints);
            this.compression = from.compression;
            this.retryPolicy = from.retryPolicy;
        }

        /**
         * Adds or replaces a hint.
         *
         * @param key hint name, e.g. {@code ttl}
         * @param value hint value; no commas
         * @return this
         * @throws IllegalArgumentException when key or value is empty or holds a character the header cannot carry
         */
        public Builder hint(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (key.isBlank() || key.contains(",") || key.contains("=")) {
                throw new IllegalArgumentException("hint key must be non-empty without ',' or '=': '" + key + "'");
            }
            if (value.contains(",")) {
                throw new IllegalArgumentException("hint '" + key + "' value cannot contain ',': '" + value + "'");
            }
            hints.put(key.trim(), value.trim());
            return this;
        }

        /**
         * Sets the wire compression.
         *
         * @param compression the compression (default {@link Compression#None})
         * @return this
         */
        public Builder compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /**
         * Overrides the client's retry policy for calls made with this context.
         *
         * @param policy the policy, or null to use the client's
         * @return this
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = policy;
            return this;
        }

        /**
         * Builds the context.
         *
         * @return the context
         */
        public Context build() {
            if (hints.isEmpty() && compression == Compression.None && retryPolicy == null) {
                return EMPTY;
            }
            return new Context(Collections.unmodifiableMap(new LinkedHashMap<>(hints)), compression, retryPolicy);
        }
    }
}
