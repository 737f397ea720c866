package dev.sluice.write;

import java.util.Locale;

/** Compression of data on the wire. */
public enum Compression {
    /** Nothing compressed. */
    None,
    /** gRPC message compression with gzip (regular and stream writes). */
    Gzip,
    /** gRPC message compression with Zstandard on regular writes; Arrow IPC body compression on bulk writes. */
    Zstd,
    /** Arrow IPC LZ4 frame body compression (bulk writes only). */
    Lz4;

    /** The names {@link #parse(String)} accepts, as a user writes them. */
    private static final String ACCEPTED = "none, gzip, zstd, lz4";

    /**
     * Reads a compression from its name, as written in a setting ({@code none}, {@code gzip}, {@code zstd},
     * {@code lz4}; case and surrounding blanks do not matter). Every setting that names a compression reads it
     * here, so a name means the same everywhere and a misspelt one is refused rather than taken as {@code none}.
     *
     * @param name the name
     * @return the compression
     * @throws IllegalArgumentException for a name that is none of the accepted ones (null and blank included),
     *     naming the accepted ones
     */
    public static Compression parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (Compression c : values()) {
            if (c.name().toLowerCase(Locale.ROOT).equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown compression '" + name + "': use one of " + ACCEPTED);
    }

    /**
     * Returns the name {@link #parse(String)} reads back.
     *
     * @return the lower-case name
     */
    public String settingName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
