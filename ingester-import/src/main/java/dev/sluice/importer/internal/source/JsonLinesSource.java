package dev.sluice.importer.internal.source;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON Lines through Jackson's streaming parser: one object per line, blank lines skipped; nested objects and
 * arrays are kept as their JSON text (for a Json column).
 */
public final class JsonLinesSource implements RecordSource {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final BufferedReader reader;
    private final List<String> columns = new ArrayList<>();
    private final Map<String, Integer> index = new HashMap<>();
    private Object[] values = new Object[16];
    private long lineNo;
    private long recordLine;
    private String raw;

    /**
     * Opens the source.
     *
     * @param in the decompressed input
     */
    public JsonLinesSource(InputStream in) {
        this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public boolean next() throws IOException {
        String line;
        do {
            line = reader.readLine();
            if (line == null) {
                return false;
            }
            lineNo++;
            if (lineNo == 1 && !line.isEmpty() && line.charAt(0) == '\uFEFF') {
                line = line.substring(1);
            }
        } while (line.isBlank());
        raw = line;
        recordLine = lineNo;
        Arrays.fill(values, null);
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new BadRecord(lineNo, "is not a JSON object", line);
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                Object value;
                switch (v) {
                    case VALUE_STRING: value = p.getText(); break;
                    case VALUE_NUMBER_INT:
                        value = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                ? new BigDecimal(p.getBigIntegerValue()) : (Object) p.getLongValue();
                        break;
                    case VALUE_NUMBER_FLOAT: value = p.getDoubleValue(); break;
                    case VALUE_TRUE: value = Boolean.TRUE; break;
                    case VALUE_FALSE: value = Boolean.FALSE; break;
                    case VALUE_NULL: value = null; break;
                    case START_OBJECT:
                    case START_ARRAY: {
                        StringWriter w = new StringWriter();
                        try (JsonGenerator g = JSON.createGenerator(w)) {
                            g.copyCurrentStructure(p);
                        }
                        value = new JsonText(w.toString());
                        break;
                    }
                    default: throw new BadRecord(lineNo, "unexpected " + v + " for key '" + name + "'", line);
                }
                Integer i = index.get(name);
                if (i == null) {
                    i = columns.size();
                    columns.add(name);
                    index.put(name, i);
                    if (i >= values.length) {
                        values = Arrays.copyOf(values, values.length * 2);
                    }
                }
                values[i] = value;
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new BadRecord(lineNo, "holds more than one JSON object", line);
            }
        } catch (JsonProcessingException e) {
            throw new BadRecord(lineNo, "is not valid JSON: " + jsonReason(e), line);
        }
        return true;
    }

    /**
     * The parser's reason without its position notes ("start marker at [Source: ...; line: 1, column: 1]"): the
     * record's line is named already, and the parser counts lines within it.
     */
    public static String jsonReason(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        int at = m.indexOf(" (start marker at [Source:");
        if (at < 0) {
            at = m.indexOf(" [Source:");
        }
        return (at >= 0 ? m.substring(0, at) : m).replaceAll("\\s+", " ").strip();
    }

    @Override
    public Object value(int column) {
        return column < values.length ? values[column] : null;
    }

    @Override
    public long line() {
        return recordLine;
    }

    @Override
    public String raw() {
        return raw;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
