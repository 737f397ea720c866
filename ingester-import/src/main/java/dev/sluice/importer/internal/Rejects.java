package dev.sluice.importer.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The rejects file: one JSON object per rejected row ({@code source}, {@code line}, {@code column}, {@code reason}, {@code raw}). */
final class Rejects implements AutoCloseable {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private final Path file;
    private final OutputStream out;

    Rejects(Path file) {
        this.file = file;
        try {
            this.out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UsageException("cannot open the rejects file " + file + ": " + e.getMessage());
        }
    }

    synchronized void write(String source, long line, String column, String reason, String raw) {
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
