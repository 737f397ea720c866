package dev.sluice.testkit.internal;

import java.util.Locale;

/**
 * A database string as clients send it ({@code dbname} on Handle, {@code x-greptime-db-name} on DoPut, {@code ?db=}
 * over HTTP), read the way the server does: src/common/catalog/src/lib.rs
 * {@code parse_optional_catalog_and_schema_from_db_string} splits at the first '-' into catalog and schema and
 * lowercases both; without a '-' the whole string, lowercased, is the schema and the catalog is the default.
 *
 * @param catalog the catalog, lowercased ({@code greptime} when the string names none)
 * @param schema the schema (database), lowercased
 */
public record DbString(String catalog, String schema) {
    /** The default catalog. */
    public static final String DEFAULT_CATALOG = "greptime";

    /**
     * Parses a non-empty database string.
     *
     * @param db the string as sent
     * @return its catalog and schema, both lowercased
     */
    public static DbString parse(String db) {
        int dash = db.indexOf('-');
        if (dash >= 0) {
            return new DbString(db.substring(0, dash).toLowerCase(Locale.ROOT), db.substring(dash + 1).toLowerCase(Locale.ROOT));
        }
        return new DbString(DEFAULT_CATALOG, db.toLowerCase(Locale.ROOT));
    }

    /**
     * Tells whether the catalog is the only one the testkit (like a default server) has.
     *
     * @return true for {@code greptime}
     */
    public boolean defaultCatalog() {
        return DEFAULT_CATALOG.equals(catalog);
    }
}
