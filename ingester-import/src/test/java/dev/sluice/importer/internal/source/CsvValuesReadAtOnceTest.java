package dev.sluice.importer.internal.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A CSV source told that values are read at once reuses its buffers from record to record, and still gives every
 * record's own values (short and long fields, quoted, empty and null ones, records of other widths between them),
 * while the values it gave before it was told stay as they were.
 */
class CsvValuesReadAtOnceTest {
    private static final CsvSource.Settings SETTINGS = new CsvSource.Settings(',', '"', (char) 0, true, null, "",
            (char) 0);

    private static String longText(int record) {
        return ("record " + record + " ").repeat(12); // longer than the fields kept as characters
    }

    private static List<String[]> records(int n) {
        List<String[]> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            String a = r % 5 == 0 ? "" : "h" + r;
            String b = r % 3 == 0 ? longText(r) : "\"q," + r + "\"";
            String c = Integer.toString(r * 7 - 100);
            out.add(new String[] {a, b, c});
        }
        return out;
    }

    private static String csv(List<String[]> records) {
        StringBuilder sb = new StringBuilder("a,b,c\n");
        for (String[] rec : records) {
            sb.append(String.join(",", rec)).append('\n');
        }
        return sb.toString();
    }

    private static String expected(String field) {
        if (field.isEmpty()) {
            return null; // the null token: an unquoted empty field
        }
        return field.startsWith("\"") ? field.substring(1, field.length() - 1) : field;
    }

    private static String text(Object v) {
        return v == null ? null : v.toString();
    }

    @Test
    void everyRecordGivesItsOwnValuesBeforeAndAfterBuffersAreReused() throws Exception {
        List<String[]> records = records(500);
        try (CsvSource src = new CsvSource(new ByteArrayInputStream(csv(records).getBytes(StandardCharsets.UTF_8)),
                SETTINGS, "test.csv")) {
            List<Object[]> kept = new ArrayList<>();
            for (int r = 0; r < 50; r++) { // read before: values kept, as a sample keeps them
                assertTrue(src.next());
                kept.add(new Object[] {src.value(0), src.value(1), src.value(2)});
            }
            src.readValuesAtOnce();
            for (int r = 50; r < records.size(); r++) {
                assertTrue(src.next(), "record " + r);
                for (int c = 0; c < 3; c++) {
                    assertEquals(expected(records.get(r)[c]), text(src.value(c)), "record " + r + ", column " + c);
                }
                assertEquals(r + 2, src.line(), "record " + r + "'s line");
            }
            assertTrue(!src.next());
            for (int r = 0; r < kept.size(); r++) {
                for (int c = 0; c < 3; c++) {
                    assertEquals(expected(records.get(r)[c]), text(kept.get(r)[c]), "kept record " + r + ", column " + c);
                }
            }
        }
    }

    @Test
    void aRecordOfAnotherWidthIsReportedWithItsOwnText() throws Exception {
        String csv = "a,b\n1,2\n3,4,5\n6,7\n";
        try (CsvSource src = new CsvSource(new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)), SETTINGS,
                "test.csv")) {
            src.readValuesAtOnce();
            assertTrue(src.next());
            assertEquals("1", text(src.value(0)));
            RecordSource.BadRecord bad = null;
            try {
                src.next();
            } catch (RecordSource.BadRecord b) {
                bad = b;
            }
            assertTrue(bad != null, "the record of three fields is refused");
            assertEquals("3,4,5", bad.raw());
            assertTrue(src.next());
            assertEquals("6", text(src.value(0)));
            assertEquals("7", text(src.value(1)));
            assertNull(src.value(2));
        }
    }
}
