package dev.sluice.internal.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Rows;
import dev.sluice.write.WriteOp;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Long text that a table keeps as the caller's {@code String} (all ASCII) reaches the request as the same bytes
 * as text it keeps encoded: each value is checked against the caller's own string's UTF-8, decoded by the
 * generated classes, and the whole request against the generated builders, whole and in pieces.
 */
class LongTextRequestBytesTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("logs")
            .addTag("host", DataType.String)
            .addField("message", DataType.String)
            .addField("doc", DataType.Json)
            .addTimestamp("ts", DataType.TimestampMillisecond)
            .build();

    static String ascii(int chars, int seed) {
        StringBuilder b = new StringBuilder(chars);
        for (int i = 0; b.length() < chars; i++) {
            char c = (char) (' ' + (i * 31 + seed) % 95);
            b.append(c == '"' || c == '\\' ? '_' : c); // also a JSON string's body
        }
        return b.toString();
    }

    static List<String> texts() {
        List<String> out = new ArrayList<>();
        String[] odd = {"\u0080", "é", "\u0141", "✓", "\uD83D\uDE00", "\uD800", "\u007F"};
        int seed = 0;
        for (int n : new int[] {1, 63, 64, 65, 127, 128, 2_000, 16_383, 16_384, 65_536, 65_537, 100_000}) {
            String a = ascii(n, seed++);
            out.add(a);
            for (String o : odd) {
                if (n > o.length() * 2) {
                    out.add(a.substring(o.length()) + o);
                    out.add(a.substring(0, n / 2) + o + a.substring(n / 2 + o.length()));
                }
            }
        }
        return out;
    }

    @Test
    void everyLongTextValueTravelsAsItsUtf8BytesInStringAndJsonColumns() throws Exception {
        List<String> texts = texts();
        Table table = Table.from(SCHEMA);
        for (int r = 0; r < texts.size(); r++) {
            String t = texts.get(r);
            table.addRow(t, t, "{\"m\":\"" + t + "\"}", 1_700_000_000_000L + r);
        }
        byte[] header = RequestHeader.newBuilder().setDbname("public").build().toByteArray();
        RequestEncoder encoder = new RequestEncoder(header, WriteOp.Insert, List.of(table));
        byte[] whole = new byte[encoder.size()];
        assertEquals(whole.length, encoder.encode(whole));

        byte[] reference = ReferenceEncoder.build(RequestHeader.parseFrom(header), WriteOp.Insert, List.of(table))
                .toByteArray();
        assertArrayEquals(reference, whole, "the generated builders' bytes");

        Rows rows = GreptimeRequest.parseFrom(whole).getRowInserts().getInserts(0).getRows();
        assertEquals(texts.size(), rows.getRowsCount());
        for (int r = 0; r < texts.size(); r++) {
            String t = texts.get(r);
            byte[] expected = t.getBytes(StandardCharsets.UTF_8);
            String what = "row " + r + " (" + t.length() + " chars)";
            assertArrayEquals(expected, rows.getRows(r).getValues(0).getStringValueBytes().toByteArray(), what);
            assertArrayEquals(expected, rows.getRows(r).getValues(1).getStringValueBytes().toByteArray(), what);
            assertArrayEquals(("{\"m\":\"" + t + "\"}").getBytes(StandardCharsets.UTF_8),
                    rows.getRows(r).getValues(2).getStringValueBytes().toByteArray(), what);
        }

        for (int scratch : new int[] {1, 100, 4_096, 70_000, 1 << 20}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new RequestEncoder(header, WriteOp.Insert, List.of(table)).writeTo(out, new byte[scratch]);
            assertArrayEquals(whole, out.toByteArray(), "written in pieces of " + scratch + " bytes");
        }
        List<RequestEncoder> parts = new RequestEncoder(header, WriteOp.Insert, List.of(table)).split(300_000);
        int at = 0;
        for (RequestEncoder part : parts) {
            byte[] bytes = new byte[part.size()];
            part.encode(bytes);
            Rows partRows = GreptimeRequest.parseFrom(bytes).getRowInserts().getInserts(0).getRows();
            for (int r = 0; r < partRows.getRowsCount(); r++, at++) {
                assertArrayEquals(texts.get(at).getBytes(StandardCharsets.UTF_8),
                        partRows.getRows(r).getValues(1).getStringValueBytes().toByteArray(), "split row " + at);
            }
        }
        assertEquals(texts.size(), at);
    }
}
