package dev.sluice.importer.internal.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.importer.internal.failure.UsageException;
import dev.sluice.importer.internal.failure.ImportFailure;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The rejects file: one JSON object per rejected row ({@code source}, {@code line}, {@code column}, {@code reason},
 * {@code raw}). A row the file already holds (same source, line and raw text, from an earlier run of the import) is
 * not written again, so a rerun that reads a rejected row again does not repeat it; another row on that line of an
 * edited input is written.
 */
public final class Rejects implements AutoCloseable {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private final Path file;
    private final OutputStream out;
    private final java.util.Set<String> written = new java.util.HashSet<>();

    /**
     * Opens the rejects file.
     *
     * @param file the file (rows of an earlier run in it are kept)
     */
    public Rejects(Path file) {
        this.file = file;
        if (Files.exists(file)) {
            try (java.io.BufferedReader r = Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
                String text;
                while ((text = r.readLine()) != null) {
                    String key = key(text);
                    if (key != null) {
                        written.add(key);
                    }
                }
            } catch (IOException e) {
                throw new UsageException("cannot read the rejects file " + file + ": " + e.getMessage()
                        + " (pass another --rejects file)");
            }
        }
        try {
            this.out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UsageException("cannot open the rejects file " + file + ": " + e.getMessage());
        }
    }

    /** The source, line and raw row of one line of the file, or null when it is not a reject. */
    private static String key(String text) {
        String source = null;
        long line = -1;
        String raw = null;
        try (com.fasterxml.jackson.core.JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("source")) {
                    source = p.getValueAsString();
                } else if (name.equals("line")) {
                    line = p.getValueAsLong(-1);
                } else if (name.equals("raw")) {
                    raw = p.getValueAsString();
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            return null;
        }
        return source == null || line < 0 ? null : key(source, line, raw);
    }

    private static String key(String source, long line, String raw) {
        return source + '\n' + line + '\n' + raw;
    }

    /**
     * Writes a rejected row, unless the file holds it already.
     *
     * @param source the input
     * @param line its line (or row of a Parquet file)
     * @param column the column at fault, or null
     * @param reason why the row is rejected
     * @param raw the row as read
     */
    public synchronized void write(String source, long line, String column, String reason, String raw) {
        if (!written.add(key(source, line, raw))) {
            return;
        }
        try {
            JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8);
            g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            g.writeStartObject();
            g.writeStringField("source", source);
            g.writeNumberField("line", line);
            if (column != null) {
                g.writeStringField("column", column);
            }
            g.writeStringField("reason", reason);
            g.writeStringField("raw", raw);
            g.writeEndObject();
            g.close();
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new ImportFailure("cannot write the rejects file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException ignored) {
            // every line was flushed when written
        }
    }
}
