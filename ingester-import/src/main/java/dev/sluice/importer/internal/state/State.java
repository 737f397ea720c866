package dev.sluice.importer.internal.state;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.source.JsonLinesSource;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The resume state: per input, the record up to which every row is acknowledged ({@code acked}: rows
 * {@code 1..acked} are stored or were rejected), and for append-mode tables the record up to which rows were
 * sent ({@code sent}): rows {@code acked+1..sent} are in doubt after a crash. Saved by writing a new file and
 * renaming it over the old one, so a crash leaves either the old or the new state.
 */
public final class State {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    /**
     * The rows of one table in a batch: their count and the range of their time index, in the column's unit.
     *
     * @param table the table
     * @param timeIndex its time index column
     * @param unitsPerSecond the column's unit
     * @param rows rows of the batch in the table
     * @param min the smallest time index value
     * @param max the largest
     */
    public record Part(String table, String timeIndex, long unitsPerSecond, long rows, long min, long max) {
    }

    /**
     * A batch sent to an append-mode table and not yet acknowledged: records {@code from..to} of its input.
     *
     * @param from its first record
     * @param to its last record
     * @param rejected records of it rejected before it was sent
     * @param parts its rows per table
     */
    public record Batch(long from, long to, long rejected, List<Part> parts) {
    }

    /** One input's progress. */
    public static final class Entry {
        final String name;
        /** The input's size in bytes when it was first read (-1 for standard input). */
        public long size;
        /** The input's modification time in milliseconds when it was first read. */
        public long modified;
        /** The position up to which every record is acknowledged or rejected (records; line protocol: lines). */
        public long acked;
        /** Append mode: the position up to which records were sent. */
        public long sent;
        /** Records rejected up to {@code acked}. */
        public long rejected;
        /** Whether the input was imported to its end. */
        public boolean done;
        /** Line protocol: rows acknowledged per table, up to {@code acked}. */
        public final java.util.Map<String, Long> tableRows = new java.util.TreeMap<>();
        /** Append mode: the batches sent and not acknowledged, in send order ({@code acked+1..sent}). */
        public final List<Batch> inDoubt = new ArrayList<>();
        /**
         * Records after {@code acked} already stored, found by {@code --in-doubt check}: {@code {from, to}} ranges
         * a rerun does not send again.
         */
        public final List<long[]> stored = new java.util.concurrent.CopyOnWriteArrayList<>(); // read by the input's reader

        /**
         * Creates the entry of an input not read yet.
         *
         * @param name the input
         * @param size its size in bytes, or -1
         * @param modified its modification time in milliseconds, or -1
         */
        public Entry(String name, long size, long modified) {
            this.name = name;
            this.size = size;
            this.modified = modified;
        }

        /** @return the input's name */
        public String name() {
            return name;
        }

        /** @return records acknowledged (or rejected) from the start */
        public long acked() {
            return acked;
        }

        /** @return records sent from the start (append mode) */
        public long sent() {
            return sent;
        }

        /** @return whether the input is finished */
        public boolean done() {
            return done;
        }

        /**
         * Whether a record after {@code acked} is known to be stored already (a rerun skips it).
         *
         * @param record the record
         * @return true when it lies in a stored range
         */
        public boolean storedAlready(long record) {
            for (long[] r : stored) {
                if (record >= r[0] && record <= r[1]) {
                    return true;
                }
            }
            return false;
        }

        /** Forgets the batches and stored ranges that {@code acked} has passed. */
        public void settled() {
            inDoubt.removeIf(b -> b.to() <= acked);
            stored.removeIf(r -> r[1] <= acked);
        }
    }

    private final Path file;
    /** The table of the import (line protocol: {@code --table}, or a name standing for the measurements' tables). */
    public String table;
    /** The database the table is in (null in a state written before it was recorded). */
    public String database;
    /** The import's time in nanoseconds: the time index of rows whose input has none. */
    public long importTimeNanos;
    /** Whether the table keeps every row (append mode). */
    public boolean appendMode;
    /** The table's row count before the import first wrote to it, for {@code --verify}; -1 when unknown. */
    public long countBefore = -1;
    /** Line protocol: each table's count(*) when the import first wrote to it (0 when it did not exist). */
    public final java.util.Map<String, Long> tableCountsBefore = new java.util.TreeMap<>();
    /**
     * Append mode: per table, the time index ranges {@code {min, max}} of the acknowledged batches, merged where they
     * overlap, so that {@code --in-doubt check} knows where the import's own stored rows stand.
     */
    public final java.util.Map<String, List<long[]>> ackedTimes = new java.util.TreeMap<>();
    /** Each input's progress, in the inputs' order. */
    public final List<Entry> entries = new ArrayList<>();
    private long lastSave;

    /**
     * Creates the state of a new import, not yet saved.
     *
     * @param file the state file
     */
    public State(Path file) {
        this.file = file;
    }

    /** @return the state file */
    public Path file() {
        return file;
    }

    /**
     * Records the time ranges of a batch the server stored.
     *
     * @param parts the batch's rows per table
     */
    public void stored(List<Part> parts) {
        for (Part p : parts) {
            List<long[]> ranges = ackedTimes.computeIfAbsent(p.table(), t -> new ArrayList<>());
            long min = p.min();
            long max = p.max();
            for (java.util.Iterator<long[]> it = ranges.iterator(); it.hasNext(); ) {
                long[] r = it.next();
                if (r[0] <= max && min <= r[1]) {
                    min = Math.min(min, r[0]);
                    max = Math.max(max, r[1]);
                    it.remove();
                }
            }
            ranges.add(new long[] {min, max});
        }
    }

    /**
     * Returns an input's entry.
     *
     * @param name the input
     * @return its entry, or null
     */
    public Entry entry(String name) {
        for (Entry e : entries) {
            if (e.name.equals(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * Reads a state file.
     *
     * @param file the file
     * @return the state, or null when the file does not exist
     * @throws IOException when it exists but cannot be read
     */
    public static State load(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        State s = new State(file);
        try (JsonParser p = JSON.createParser(file.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a state file");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                switch (f) {
                    case "table": s.table = p.getText(); break;
                    case "database": s.database = p.getText(); break;
                    case "importTimeNanos": s.importTimeNanos = p.getLongValue(); break;
                    case "appendMode": s.appendMode = p.getBooleanValue(); break;
                    case "countBefore": s.countBefore = p.getLongValue(); break;
                    case "tableCountsBefore": readCounts(p, s.tableCountsBefore); break;
                    case "ackedTimes":
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            List<long[]> ranges = s.ackedTimes.computeIfAbsent(p.currentName(), t -> new ArrayList<>());
                            p.nextToken();
                            while (p.nextToken() == JsonToken.START_ARRAY) {
                                p.nextToken();
                                long min = p.getLongValue();
                                p.nextToken();
                                ranges.add(new long[] {min, p.getLongValue()});
                                p.nextToken();
                            }
                        }
                        break;
                    case "inputs":
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            Entry e = new Entry(null, -1, -1);
                            String name = null;
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String k = p.currentName();
                                p.nextToken();
                                switch (k) {
                                    case "name": name = p.getText(); break;
                                    case "size": e.size = p.getLongValue(); break;
                                    case "modified": e.modified = p.getLongValue(); break;
                                    case "acked": e.acked = p.getLongValue(); break;
                                    case "sent": e.sent = p.getLongValue(); break;
                                    case "rejected": e.rejected = p.getLongValue(); break;
                                    case "done": e.done = p.getBooleanValue(); break;
                                    case "tableRows": readCounts(p, e.tableRows); break;
                                    case "inDoubt": readBatches(p, e.inDoubt); break;
                                    case "stored":
                                        while (p.nextToken() == JsonToken.START_ARRAY) {
                                            p.nextToken();
                                            long from = p.getLongValue();
                                            p.nextToken();
                                            e.stored.add(new long[] {from, p.getLongValue()});
                                            p.nextToken();
                                        }
                                        break;
                                    default: p.skipChildren(); break;
                                }
                            }
                            Entry named = new Entry(name, e.size, e.modified);
                            named.acked = e.acked;
                            named.sent = e.sent;
                            named.rejected = e.rejected;
                            named.done = e.done;
                            named.tableRows.putAll(e.tableRows);
                            named.inDoubt.addAll(e.inDoubt);
                            named.stored.addAll(e.stored);
                            s.entries.add(named);
                        }
                        break;
                    default: p.skipChildren(); break;
                }
            }
        } catch (IOException | RuntimeException e) {
            String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? JsonLinesSource.jsonReason(j)
                    : e.getMessage();
            throw new IOException(file + " is not a state file this command can read (" + why + "): if it is"
                    + " another file, give --state a path of its own; if it is a damaged state file, delete it to import"
                    + " everything again", e);
        }
        return s;
    }

    /**
     * Saves the state now.
     *
     * @throws ImportFailure when the file cannot be written
     */
    private static void readCounts(JsonParser p, java.util.Map<String, Long> into) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            p.nextToken();
            into.put(k, p.getLongValue());
        }
    }

    private static void readBatches(JsonParser p, List<Batch> into) throws IOException {
        while (p.nextToken() == JsonToken.START_OBJECT) {
            long from = 0;
            long to = 0;
            long rejected = 0;
            List<Part> parts = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String k = p.currentName();
                p.nextToken();
                switch (k) {
                    case "from": from = p.getLongValue(); break;
                    case "to": to = p.getLongValue(); break;
                    case "rejected": rejected = p.getLongValue(); break;
                    case "tables":
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            String table = null;
                            String timeIndex = null;
                            long units = 0;
                            long rows = 0;
                            long min = 0;
                            long max = 0;
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String f = p.currentName();
                                p.nextToken();
                                switch (f) {
                                    case "table": table = p.getText(); break;
                                    case "timeIndex": timeIndex = p.getText(); break;
                                    case "unitsPerSecond": units = p.getLongValue(); break;
                                    case "rows": rows = p.getLongValue(); break;
                                    case "min": min = p.getLongValue(); break;
                                    case "max": max = p.getLongValue(); break;
                                    default: p.skipChildren(); break;
                                }
                            }
                            parts.add(new Part(table, timeIndex, units, rows, min, max));
                        }
                        break;
                    default: p.skipChildren(); break;
                }
            }
            into.add(new Batch(from, to, rejected, List.copyOf(parts)));
        }
    }

    private static void writeBatches(JsonGenerator g, Entry e) throws IOException {
        if (!e.inDoubt.isEmpty()) {
            g.writeArrayFieldStart("inDoubt");
            for (Batch b : e.inDoubt) {
                g.writeStartObject();
                g.writeNumberField("from", b.from());
                g.writeNumberField("to", b.to());
                g.writeNumberField("rejected", b.rejected());
                g.writeArrayFieldStart("tables");
                for (Part t : b.parts()) {
                    g.writeStartObject();
                    g.writeStringField("table", t.table());
                    g.writeStringField("timeIndex", t.timeIndex());
                    g.writeNumberField("unitsPerSecond", t.unitsPerSecond());
                    g.writeNumberField("rows", t.rows());
                    g.writeNumberField("min", t.min());
                    g.writeNumberField("max", t.max());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        if (!e.stored.isEmpty()) {
            g.writeArrayFieldStart("stored");
            for (long[] r : e.stored) {
                g.writeStartArray();
                g.writeNumber(r[0]);
                g.writeNumber(r[1]);
                g.writeEndArray();
            }
            g.writeEndArray();
        }
    }

    private static void writeCounts(JsonGenerator g, String field, java.util.Map<String, Long> counts)
            throws IOException {
        if (counts.isEmpty()) {
            return;
        }
        g.writeObjectFieldStart(field);
        for (java.util.Map.Entry<String, Long> c : counts.entrySet()) {
            g.writeNumberField(c.getKey(), c.getValue());
        }
        g.writeEndObject();
    }

    /** Writes the state file (a new file renamed over the old one). */
    public synchronized void save() {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp); JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeNumberField("version", 1);
            g.writeStringField("table", table);
            if (database != null) {
                g.writeStringField("database", database);
            }
            g.writeNumberField("importTimeNanos", importTimeNanos);
            g.writeBooleanField("appendMode", appendMode);
            g.writeNumberField("countBefore", countBefore);
            writeCounts(g, "tableCountsBefore", tableCountsBefore);
            if (!ackedTimes.isEmpty()) {
                g.writeObjectFieldStart("ackedTimes");
                for (java.util.Map.Entry<String, List<long[]>> t : ackedTimes.entrySet()) {
                    g.writeArrayFieldStart(t.getKey());
                    for (long[] r : t.getValue()) {
                        g.writeStartArray();
                        g.writeNumber(r[0]);
                        g.writeNumber(r[1]);
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeArrayFieldStart("inputs");
            for (Entry e : entries) {
                g.writeStartObject();
                g.writeStringField("name", e.name);
                g.writeNumberField("size", e.size);
                g.writeNumberField("modified", e.modified);
                g.writeNumberField("acked", e.acked);
                g.writeNumberField("sent", e.sent);
                g.writeNumberField("rejected", e.rejected);
                g.writeBooleanField("done", e.done);
                writeCounts(g, "tableRows", e.tableRows);
                writeBatches(g, e);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new ImportFailure("cannot write the state file " + tmp + ": " + e.getMessage(), e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ImportFailure("cannot replace the state file " + file + ": " + e.getMessage(), e);
        }
        lastSave = System.nanoTime();
    }

    /** Saves unless the last save is under 200 ms old. */
    public synchronized void saveSoon() {
        if (System.nanoTime() - lastSave > 200_000_000L) {
            save();
        }
    }
}
