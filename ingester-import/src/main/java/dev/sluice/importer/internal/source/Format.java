package dev.sluice.importer.internal.source;

import dev.sluice.importer.internal.failure.UsageException;
import java.util.Locale;

/** The input formats, told by file extension or {@code --format}. */
public enum Format {
    /** Comma-separated values (RFC 4180 quoting). */
    CSV,
    /** Tab-separated values. */
    TSV,
    /** One flat JSON object per line. */
    JSONL,
    /** InfluxDB line protocol. */
    LP,
    /** Apache Parquet (a file: it is read by row group, so not from standard input nor compressed as a whole). */
    PARQUET;

    /**
     * Parses a {@code --format} value.
     *
     * @param s the value
     * @return the format
     * @throws UsageException for an unknown name
     */
    public static Format parse(String s) {
        switch (s.toLowerCase(Locale.ROOT)) {
            case "csv": return CSV;
            case "tsv": return TSV;
            case "jsonl": case "ndjson": case "json": return JSONL;
            case "lp": case "line": case "influx": case "line-protocol": return LP;
            case "parquet": return PARQUET;
            default: throw new UsageException("unknown --format '" + s + "': use csv, tsv, jsonl, lp or parquet");
        }
    }

    /**
     * Tells a format from a file name (after any .gz or .zst suffix is removed).
     *
     * @param name the file name without its compression suffix
     * @return the format, or null when the extension is not known
     */
    public static Format ofFileName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith(".csv")) {
            return CSV;
        }
        if (n.endsWith(".tsv") || n.endsWith(".tab")) {
            return TSV;
        }
        if (n.endsWith(".jsonl") || n.endsWith(".ndjson") || n.endsWith(".json")) {
            return JSONL;
        }
        if (n.endsWith(".lp") || n.endsWith(".line") || n.endsWith(".influx")) {
            return LP;
        }
        if (n.endsWith(".parquet")) {
            return PARQUET;
        }
        return null;
    }

    /**
     * Tells whether the format's rows all go to one table of one shape.
     *
     * @return true for CSV, TSV, JSON Lines and Parquet
     */
    public boolean tabular() {
        return this != LP;
    }
}
