package dev.sluice.importer.internal;

import de.siegmar.fastcsv.reader.CommentStrategy;
import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import de.siegmar.fastcsv.reader.CsvRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** CSV and TSV through FastCSV: RFC 4180 quoting (a quote inside a quoted value is doubled), UTF-8, BOM skipped. */
public final class CsvSource implements RecordSource {
    /**
     * CSV settings.
     *
     * @param delimiter field separator
     * @param quote quote character
     * @param comment comment line prefix, or 0 for none
     * @param header whether the first record names the columns
     * @param columns column names given on the command line (null: from the header, or c1, c2...)
     * @param nullToken the text that stands for NULL (an unquoted empty value by default)
     */
    public record Settings(char delimiter, char quote, char comment, boolean header, List<String> columns,
            String nullToken) {
    }

    private final CsvReader<CsvRecord> reader;
    private final Iterator<CsvRecord> it;
    private final List<String> columns;
    private final Settings settings;
    private final String inputName;
    private CsvRecord current;
    private boolean firstRecordPending;

    /**
     * Opens the source and reads the header, if any.
     *
     * @param in the decompressed input
     * @param settings the settings
     * @param inputName the input's name, for messages
     * @throws IOException when the header cannot be read
     */
    public CsvSource(InputStream in, Settings settings, String inputName) throws IOException {
        this.settings = settings;
        this.inputName = inputName;
        CsvReader.CsvReaderBuilder b = CsvReader.builder().fieldSeparator(settings.delimiter())
                .quoteCharacter(settings.quote()).skipEmptyLines(true).allowExtraFields(true)
                .allowMissingFields(true).detectBomHeader(true);
        if (settings.comment() != 0) {
            b.commentStrategy(CommentStrategy.SKIP).commentCharacter(settings.comment());
        }
        this.reader = b.ofCsvRecord(in, StandardCharsets.UTF_8);
        this.it = reader.iterator();
        if (settings.header()) {
            if (!hasNext()) {
                throw new IOException("'" + inputName + "' is empty: no header line");
            }
            CsvRecord h = it.next();
            List<String> names = new ArrayList<>(h.getFields());
            for (int i = 0; i < names.size(); i++) {
                names.set(i, names.get(i).strip());
            }
            this.columns = settings.columns() != null ? settings.columns() : names;
        } else {
            if (settings.columns() != null) {
                this.columns = settings.columns();
            } else {
                // Name columns c1..cN after the first record's width.
                List<String> names = new ArrayList<>();
                if (hasNext()) {
                    current = it.next();
                    firstRecordPending = true;
                    for (int i = 1; i <= current.getFieldCount(); i++) {
                        names.add("c" + i);
                    }
                }
                this.columns = names;
            }
        }
    }

    private boolean hasNext() throws IOException {
        try {
            return it.hasNext();
        } catch (CsvParseException e) {
            throw new IOException("'" + inputName + "' cannot be parsed as CSV: " + e.getMessage(), e);
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public List<String> columns() {
        return columns;
    }

    @Override
    public boolean next() throws IOException {
        if (firstRecordPending) {
            firstRecordPending = false;
        } else {
            if (!hasNext()) {
                current = null;
                return false;
            }
            current = it.next();
        }
        if (current.getFieldCount() != columns.size()) {
            throw new BadRecord(current.getStartingLineNumber(), "has " + current.getFieldCount() + " fields, the header "
                    + columns.size(), raw());
        }
        return true;
    }

    @Override
    public Object value(int column) {
        if (column >= current.getFieldCount()) {
            return null;
        }
        String v = current.getField(column);
        return v.equals(settings.nullToken()) ? null : v;
    }

    @Override
    public long line() {
        return current.getStartingLineNumber();
    }

    @Override
    public String raw() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < current.getFieldCount(); i++) {
            if (i > 0) {
                sb.append(settings.delimiter());
            }
            String f = current.getField(i);
            boolean quote = f.indexOf(settings.delimiter()) >= 0 || f.indexOf(settings.quote()) >= 0
                    || f.indexOf('\n') >= 0 || f.indexOf('\r') >= 0;
            if (quote) {
                String q = String.valueOf(settings.quote());
                sb.append(q).append(f.replace(q, q + q)).append(q);
            } else {
                sb.append(f);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
