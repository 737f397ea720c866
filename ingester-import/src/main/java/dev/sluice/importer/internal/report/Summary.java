package dev.sluice.importer.internal.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.importer.internal.source.Inputs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/** What an import did: printed at the end, and written as JSON with {@code --summary-json}. */
public final class Summary {
    /** Whether the import got as far as loading (a usage error or a dry run prints no summary). */
    public boolean started;
    /** The table written, or how the tables are named (line protocol). */
    public String table;
    /** The write path: {@code bulk} or {@code regular}. */
    public String path;
    /** The state file's path. */
    public String stateFile;
    int inputs;
    long rowsRead;
    long rowsWritten;
    long rowsRejected;
    long linesWithoutRecord;
    long bytesRead;
    double seconds;
    /** Seconds before the first input was read (sampling, table lookup, connecting), or -1. */
    double setupSeconds = -1;
    /** Seconds from the first input read to the last batch answered, or -1. */
    double transferSeconds = -1;
    /** The time --verify took, not counted in {@link #seconds}; -1 without it. */
    double verifySeconds = -1;
    /** The table's row count {@code --verify} read, or null without it. */
    public Long verifyCount;
    /** The row count {@code --verify} expected, or null without it. */
    public Long verifyExpected;
    /** Whether {@code --verify} found the rows expected; null without it. */
    public Boolean verifyOk;
    /** Why the import stopped or failed, or null. */
    public String error;
    /** The exit code. */
    public int exitCode;
    /** Whether the table keeps only the last row of equal tags and time index (it is not append-mode). */
    public boolean collapsible;
    /** Whether the rows are line protocol points, of tables keyed on a series (measurement and tags) and time. */
    public boolean lineProtocol;
    /** Warnings given before anything was written. */
    public final java.util.List<String> warnings = new java.util.ArrayList<>();
    /** Files of the directories given that were not read, with the reason. */
    public final java.util.List<Inputs.Skipped> skipped = new java.util.ArrayList<>();

    /**
     * Takes the counters and times of the run.
     *
     * @param s the run's counters
     */
    public void fill(Stats s) {
        inputs = s.inputs;
        rowsRead = s.rowsRead.get();
        rowsWritten = s.rowsWritten.get();
        rowsRejected = s.rejected.get();
        linesWithoutRecord = s.linesWithoutRecord.get();
        bytesRead = s.rawBytes.get();
        long end = s.verifyFrom != 0 ? s.verifyFrom : System.nanoTime();
        seconds = (end - s.started) / 1e9;
        if (s.verifyUntil != 0) {
            verifySeconds = (s.verifyUntil - s.verifyFrom) / 1e9;
        }
        if (s.readingFrom != 0) {
            setupSeconds = (s.readingFrom - s.started) / 1e9;
            if (s.answeredAt != 0) {
                transferSeconds = (s.answeredAt - s.readingFrom) / 1e9;
            }
        }
    }

    /**
     * Renders the summary for people.
     *
     * @return the text, lines ending in line breaks
     */
    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("imported into %s (%s path): %,d rows read, %,d written (acknowledged), %,d rejected"
                + " in %.1f s"
                + " (%,.0f rows/s, %.1f MB/s)%n", table, path, rowsRead, rowsWritten, rowsRejected, seconds,
                seconds > 0 ? rowsWritten / seconds : 0, seconds > 0 ? bytesRead / 1e6 / seconds : 0));
        if (collapsible) {
            sb.append("  written counts rows the server acknowledged: ").append(lineProtocol ? "a table keeps one row"
                    + " per series (measurement and tags) and time, so the tables can hold fewer points"
                    : "the table keeps only the last of rows with equal tags and time index, so it can hold fewer")
                    .append(" (--verify counts them)\n");
        }
        if (linesWithoutRecord > 0) {
            sb.append(String.format("  %,d lines held no row (blank, only whitespace, or # comments): skipped, as"
                    + " InfluxDB skips them%n", linesWithoutRecord));
        }
        for (String w : warnings) {
            sb.append("warning: ").append(w).append('\n');
        }
        if (transferSeconds > 0) {
            sb.append(String.format("  setup (sampling, table lookup, connecting) %.1f s, then reading and writing %.1f s"
                    + " (%,.0f rows/s)%n", setupSeconds, transferSeconds, rowsWritten / transferSeconds));
        }
        if (verifyCount != null) {
            sb.append(String.format("verify: count(*) = %,d%s (%.1f s)%n", verifyCount, verifyExpected == null ? ""
                    : verifyOk ? " as expected" : String.format(", expected %,d: MISMATCH", verifyExpected),
                    verifySeconds));
        }
        for (Inputs.Skipped sk : skipped) {
            sb.append("not read: ").append(sk.file()).append(" (").append(sk.reason()).append(")\n");
        }
        sb.append("state: ").append(stateFile).append(" (exit ").append(exitCode).append(")\n");
        return sb.toString();
    }

    /**
     * Writes the summary as JSON.
     *
     * @param where a file, or {@code -} for standard output
     * @param out standard output
     * @param err where a failure to write is told
     */
    public void writeJson(String where, PrintStream out, PrintStream err) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(buf, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("table", table);
            g.writeStringField("path", path);
            g.writeNumberField("inputs", inputs);
            g.writeNumberField("rowsRead", rowsRead);
            g.writeNumberField("rowsWritten", rowsWritten);
            g.writeNumberField("rowsRejected", rowsRejected);
            g.writeNumberField("linesWithoutRow", linesWithoutRecord);
            g.writeNumberField("bytesRead", bytesRead);
            g.writeNumberField("seconds", Math.round(seconds * 1000) / 1000.0);
            g.writeNumberField("rowsPerSecond", seconds > 0 ? Math.round(rowsWritten / seconds) : 0);
            if (transferSeconds > 0) {
                g.writeNumberField("setupSeconds", Math.round(setupSeconds * 1000) / 1000.0);
                g.writeNumberField("transferSeconds", Math.round(transferSeconds * 1000) / 1000.0);
                g.writeNumberField("transferRowsPerSecond", Math.round(rowsWritten / transferSeconds));
            }
            if (verifyCount != null) {
                g.writeNumberField("verifyCount", verifyCount);
            }
            if (verifySeconds >= 0) {
                g.writeNumberField("verifySeconds", Math.round(verifySeconds * 1000) / 1000.0);
            }
            if (verifyExpected != null) {
                g.writeNumberField("verifyExpected", verifyExpected);
                g.writeBooleanField("verifyOk", verifyOk);
            }
            if (!warnings.isEmpty()) {
                g.writeArrayFieldStart("warnings");
                for (String w : warnings) {
                    g.writeString(w);
                }
                g.writeEndArray();
            }
            if (!skipped.isEmpty()) {
                g.writeArrayFieldStart("skipped");
                for (Inputs.Skipped sk : skipped) {
                    g.writeStartObject();
                    g.writeStringField("file", sk.file());
                    g.writeStringField("reason", sk.reason());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeStringField("stateFile", stateFile);
            if (error != null) {
                g.writeStringField("error", error);
            }
            g.writeNumberField("exitCode", exitCode);
            g.writeEndObject();
        } catch (IOException e) {
            err.println("error: cannot render the summary: " + e.getMessage());
            return;
        }
        String json = buf.toString(StandardCharsets.UTF_8);
        if (where.equals("-")) {
            out.println(json);
            return;
        }
        try {
            Files.writeString(Paths.get(where), json + "\n");
        } catch (IOException e) {
            err.println("error: cannot write --summary-json " + where + ": " + e.getMessage());
        }
    }
}
