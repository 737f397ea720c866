package dev.sluice.kafka.connect.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordMapperTest {
    private static final long TS = 1_700_000_000_123L;

    static RecordMapper mapper(String tableField, List<String> tags, String tsField, String unit, String overrides) {
        return new RecordMapper(new RecordMapper.Settings(new TableNamer("${topic}", "", ""), tableField, tags, tsField,
                unit, "ts", ColumnTypeOverrides.parse(overrides)));
    }

    static SinkRecord record(String topic, Object key, Object value, Schema valueSchema) {
        return new SinkRecord(topic, 0, null, key, valueSchema, value, 7, TS, TimestampType.CREATE_TIME);
    }

    private static TableSchema.Column col(MappedRow r, String name) {
        return r.schema().column(r.schema().indexOf(name));
    }

    private static Object val(MappedRow r, String name) {
        return r.values()[r.schema().indexOf(name)];
    }

    /** The row must also be accepted by a Sluice Table, as the writer will do. */
    private static void accepted(MappedRow r) {
        Table.from(r.schema()).addRow(r.values());
    }

    @Test
    void everyConnectTypeAndLogicalTypeMapsToAGreptimeType() {
        Schema inner = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.STRING_SCHEMA).build();
        Schema s = SchemaBuilder.struct()
                .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
                .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
                .field("b", Schema.BOOLEAN_SCHEMA).field("s", Schema.STRING_SCHEMA).field("bytes", Schema.BYTES_SCHEMA)
                .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
                .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build())
                .field("nested", inner)
                .field("day", Date.SCHEMA).field("tod", Time.SCHEMA).field("at", Timestamp.SCHEMA)
                .field("price", Decimal.builder(3).parameter("connect.decimal.precision", "12").build())
                .field("amount", Decimal.schema(2))
                .field("opt", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Struct v = new Struct(s).put("i8", (byte) -8).put("i16", (short) 16).put("i32", 32).put("i64", 64L)
                .put("f32", 1.5f).put("f64", 2.25).put("b", true).put("s", "text")
                .put("bytes", "xy".getBytes(StandardCharsets.UTF_8)).put("arr", List.of(1, 2))
                .put("map", Map.of("k", 0.5)).put("nested", new Struct(inner).put("a", 1).put("b", "c"))
                .put("day", new java.util.Date(19_000L * 86_400_000L))
                .put("tod", new java.util.Date(3_600_000L + 1_234))
                .put("at", new java.util.Date(TS))
                .put("price", new BigDecimal("12.345")).put("amount", new BigDecimal("-1.50"));
        MappedRow r = mapper("", List.of(), "", "ms", "").map(record("metrics", null, v, s));
        assertEquals("metrics", r.schema().tableName());
        Map<String, DataType> expected = new LinkedHashMap<>();
        expected.put("i8", DataType.Int8);
        expected.put("i16", DataType.Int16);
        expected.put("i32", DataType.Int32);
        expected.put("i64", DataType.Int64);
        expected.put("f32", DataType.Float32);
        expected.put("f64", DataType.Float64);
        expected.put("b", DataType.Bool);
        expected.put("s", DataType.String);
        expected.put("bytes", DataType.Binary);
        expected.put("arr", DataType.Json);
        expected.put("map", DataType.Json);
        expected.put("nested", DataType.Json);
        expected.put("day", DataType.Date);
        expected.put("tod", DataType.TimeMillisecond);
        expected.put("at", DataType.TimestampMillisecond);
        expected.put("price", DataType.Decimal128);
        expected.put("amount", DataType.Decimal128);
        expected.put("opt", DataType.String);
        expected.put("ts", DataType.TimestampMillisecond);
        for (Map.Entry<String, DataType> e : expected.entrySet()) {
            assertEquals(e.getValue(), col(r, e.getKey()).dataType(), e.getKey());
        }
        assertEquals(SemanticType.Field, col(r, "at").semanticType());
        assertEquals(SemanticType.Timestamp, col(r, "ts").semanticType());
        assertEquals(new DecimalType(12, 3), col(r, "price").decimalType());
        assertEquals(new DecimalType(38, 2), col(r, "amount").decimalType());
        assertEquals(19_000, val(r, "day"));
        assertEquals(LocalTime.of(1, 0, 1, 234_000_000), val(r, "tod"));
        assertEquals(TS, val(r, "ts"));
        assertEquals(Map.of("a", 1, "b", "c"), val(r, "nested"));
        assertEquals(List.of(1, 2), val(r, "arr"));
        assertNull(val(r, "opt"));
        accepted(r);
    }

    @Test
    void aStructSchemaIsPlannedOnce() {
        Schema s = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("cpu", Schema.FLOAT64_SCHEMA).build();
        RecordMapper m = mapper("", List.of("host"), "", "ms", "");
        MappedRow a = m.map(record("cpu", null, new Struct(s).put("host", "h1").put("cpu", 0.5), s));
        MappedRow b = m.map(record("cpu", null, new Struct(s).put("host", "h2").put("cpu", 0.7), s));
        assertSame(a.schema(), b.schema());
        assertEquals(SemanticType.Tag, col(a, "host").semanticType());
        assertArrayEquals(new Object[] {"h2", 0.7, TS}, b.values());
    }

    @Test
    void timeIndexFromAFieldInEveryUnitAndForm() {
        Schema s = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("t", Schema.INT64_SCHEMA).build();
        for (String unit : List.of("s", "ms", "us", "ns")) {
            MappedRow r = mapper("", List.of("host"), "t", unit, "")
                    .map(record("m", null, new Struct(s).put("host", "h").put("t", 1_700_000_000L), s));
            TableSchema.Column c = col(r, "t");
            assertEquals(SemanticType.Timestamp, c.semanticType());
            assertEquals(switch (unit) {
                case "s" -> DataType.TimestampSecond;
                case "ms" -> DataType.TimestampMillisecond;
                case "us" -> DataType.TimestampMicrosecond;
                default -> DataType.TimestampNanosecond;
            }, c.dataType());
            assertEquals(-1, r.schema().indexOf("ts"), "no record-timestamp column when a field is the time index");
            accepted(r);
        }
        Schema logical = SchemaBuilder.struct().field("t", Timestamp.SCHEMA).build();
        MappedRow r = mapper("", List.of(), "t", "s", "")
                .map(record("m", null, new Struct(logical).put("t", new java.util.Date(TS)), logical));
        // A Connect Timestamp time index follows timestamp.unit too (the column's precision), like numbers and text.
        assertEquals(DataType.TimestampSecond, col(r, "t").dataType());
        accepted(r);
        Schema text = SchemaBuilder.struct().field("t", Schema.STRING_SCHEMA).build();
        MappedRow iso = mapper("", List.of(), "t", "us", "")
                .map(record("m", null, new Struct(text).put("t", "2024-01-01T00:00:00.000001Z"), text));
        assertEquals(Instant.parse("2024-01-01T00:00:00.000001Z"), val(iso, "t"));
        accepted(iso);
        // Seconds in the record, milliseconds in the column (overridden): converted, not reinterpreted.
        MappedRow conv = mapper("", List.of(), "t", "s", "t:TimestampMillisecond")
                .map(record("m", null, new Struct(s).put("host", "h").put("t", 1_700_000_000L), s));
        assertEquals(Instant.ofEpochSecond(1_700_000_000L), val(conv, "t"));
    }

    @Test
    void recordTimestampColumnHonoursAnOverride() {
        Schema s = SchemaBuilder.struct().field("v", Schema.INT32_SCHEMA).build();
        MappedRow r = mapper("", List.of(), "", "s", "ts:TimestampMicrosecond")
                .map(record("m", null, new Struct(s).put("v", 1), s));
        assertEquals(DataType.TimestampMicrosecond, col(r, "ts").dataType());
        assertEquals(Instant.ofEpochMilli(TS), val(r, "ts"));
        accepted(r);
    }

    @Test
    void schemalessMapsAreInferredAndOverridable() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", "h1");
        v.put("count", 3L);
        v.put("small", 4);
        v.put("cpu", 0.25);
        v.put("ok", false);
        v.put("tags", Map.of("a", "b"));
        v.put("list", List.of(1, 2));
        v.put("money", new BigDecimal("1.5"));
        v.put("missing", null);
        v.put("asFloat", 7L);
        MappedRow r = mapper("", List.of("host"), "", "ms", "asFloat:Float64,money:Decimal128(10,2)")
                .map(record("t", null, v, null));
        assertEquals(DataType.String, col(r, "host").dataType());
        assertEquals(SemanticType.Tag, col(r, "host").semanticType());
        assertEquals(DataType.Int64, col(r, "count").dataType());
        assertEquals(DataType.Int64, col(r, "small").dataType());
        assertEquals(DataType.Float64, col(r, "cpu").dataType());
        assertEquals(DataType.Bool, col(r, "ok").dataType());
        assertEquals(DataType.Json, col(r, "tags").dataType());
        assertEquals(DataType.Json, col(r, "list").dataType());
        assertEquals(DataType.Decimal128, col(r, "money").dataType());
        assertEquals(new DecimalType(10, 2), col(r, "money").decimalType());
        assertEquals(DataType.Float64, col(r, "asFloat").dataType());
        assertEquals(-1, r.schema().indexOf("missing"), "a null value is left out (stored as NULL)");
        assertEquals(TS, val(r, "ts"));
        accepted(r);
        Map<String, Object> dec = new LinkedHashMap<>();
        dec.put("money", new BigDecimal("2.5"));
        assertEquals(DataType.Float64, col(mapper("", List.of(), "", "ms", "").map(record("t", null, dec, null)),
                "money").dataType(), "decimals are inferred as Float64 without an override");
    }

    @Test
    void schemalessTimeIndexFromNumberOrText() {
        Map<String, Object> v = new HashMap<>();
        v.put("at", 1_700_000_000_000_000L);
        v.put("x", 1.0);
        MappedRow r = mapper("", List.of(), "at", "us", "").map(record("t", null, v, null));
        assertEquals(DataType.TimestampMicrosecond, col(r, "at").dataType());
        accepted(r);
        v.put("at", "2024-05-01T10:00:00Z");
        MappedRow s = mapper("", List.of(), "at", "ms", "").map(record("t", null, v, null));
        assertEquals(Instant.parse("2024-05-01T10:00:00Z"), val(s, "at"));
        accepted(s);
    }

    @Test
    void tableNamesFromTemplateRegexOrField() {
        RecordMapper renamed = new RecordMapper(new RecordMapper.Settings(
                new TableNamer("gt_${topic}", "prod\\.(.*)", "$1"), "", List.of(), "", "ms", "ts",
                ColumnTypeOverrides.parse("")));
        Map<String, Object> v = Map.of("x", 1L);
        assertEquals("gt_cpu", renamed.map(record("prod.cpu", null, v, null)).schema().tableName());
        assertEquals("gt_dev.cpu", renamed.map(record("dev.cpu", null, v, null)).schema().tableName());

        RecordMapper byField = mapper("kind", List.of(), "", "ms", "");
        Map<String, Object> m = new HashMap<>(Map.of("kind", "disk", "x", 1L));
        MappedRow r = byField.map(record("any", null, m, null));
        assertEquals("disk", r.schema().tableName());
        assertEquals(-1, r.schema().indexOf("kind"), "the table field is not a column");
        Schema s = SchemaBuilder.struct().field("kind", Schema.STRING_SCHEMA).field("x", Schema.INT64_SCHEMA).build();
        assertEquals("net", byField.map(record("any", null, new Struct(s).put("kind", "net").put("x", 2L), s))
                .schema().tableName());
    }

    @Test
    void deletesMapTheKeysTagsAndTimeIndex() {
        Schema k = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("t", Schema.INT64_SCHEMA)
                .field("extra", Schema.INT32_SCHEMA).build();
        MappedRow r = mapper("", List.of("host"), "t", "ms", "")
                .mapDelete(record("cpu", new Struct(k).put("host", "h").put("t", 5L).put("extra", 1), null, null));
        assertEquals(2, r.schema().columnCount());
        assertArrayEquals(new Object[] {"h", 5L}, r.values());
        MappedRow m = mapper("", List.of("host"), "", "ms", "")
                .mapDelete(record("cpu", Map.of("host", "h", "cpu", 1.0), null, null));
        assertEquals(List.of("host", "ts"), m.schema().columns().stream().map(TableSchema.Column::name).toList());
    }

    @Test
    void withTheRecordTimestampAsTimeIndexATombstoneKeysTsFieldNamesTheRowInMilliseconds() {
        // timestamp.unit=s must not apply: the key names a record timestamp, which Kafka counts in milliseconds.
        RecordMapper mapper = mapper("", List.of("host"), "", "s", "");
        MappedRow number = mapper.mapDelete(record("cpu", Map.of("host", "h", "ts", 1_000L), null, null));
        assertEquals(java.util.Set.of("host", "ts"), number.schema().columns().stream().map(TableSchema.Column::name)
                .collect(java.util.stream.Collectors.toSet()));
        assertEquals(SemanticType.Timestamp, col(number, "ts").semanticType());
        assertEquals(DataType.TimestampMillisecond, col(number, "ts").dataType());
        assertEquals(1_000L, val(number, "ts"));
        MappedRow text = mapper.mapDelete(record("cpu", Map.of("host", "h", "ts", "1970-01-01T00:00:02Z"), null, null));
        assertEquals(2_000L, val(text, "ts"));
        Schema k = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("ts", Timestamp.SCHEMA).build();
        MappedRow struct = mapper.mapDelete(record("cpu", new Struct(k).put("host", "h")
                .put("ts", new java.util.Date(3_000L)), null, null));
        assertEquals(3_000L, val(struct, "ts"));
        MappedRow bare = mapper.mapDelete(record("cpu", Map.of("host", "h"), null, null));
        assertEquals(TS, val(bare, "ts"), "without ts in the key, the tombstone's own timestamp");
        accepted(number);
        accepted(struct);
        MappingException bad = assertThrows(MappingException.class,
                () -> mapper.mapDelete(record("cpu", Map.of("host", "h", "ts", 1.5), null, null)));
        assertEquals("ts", bad.column());
        assertEquals("cpu", bad.table());
        // A value holding the same field names keeps its own plan: ts there is no time index.
        MappedRow value = mapper.map(record("cpu", null, Map.of("host", "h", "load", 1_000L), null));
        assertEquals(TS, val(value, "ts"));
    }

    @Test
    void badRecordsNameTableAndColumn() {
        Schema s = SchemaBuilder.struct().field("v", Schema.FLOAT64_SCHEMA).build();
        MappingException notStruct = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "", "ms", "").map(record("cpu", null, "plain text", Schema.STRING_SCHEMA)));
        assertEquals("cpu", notStruct.table());
        assertTrue(notStruct.getMessage().contains("java.lang.String"), notStruct.getMessage());

        MappingException noTs = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "t", "ms", "").map(record("cpu", null, new Struct(s).put("v", 1.0), s)));
        assertEquals("t", noTs.column());

        Map<String, Object> v = new HashMap<>(Map.of("t", "yesterday", "x", 1L));
        MappingException badIso = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "t", "ms", "").map(record("cpu", null, v, null)));
        assertEquals("t", badIso.column());
        assertTrue(badIso.getMessage().contains("yesterday"));

        Schema bad = SchemaBuilder.struct().field("t", Schema.FLOAT64_SCHEMA).build();
        MappingException floatTs = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "t", "ms", "").map(record("cpu", null, new Struct(bad).put("t", 1.0), bad)));
        assertEquals("t", floatTs.column());

        MappingException badName = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "", "ms", "").map(record("9lives", null, Map.of("x", 1L), null)));
        assertEquals("9lives", badName.table());

        Schema wide = SchemaBuilder.struct().field("d", Decimal.builder(2).parameter("connect.decimal.precision", "40")
                .build()).build();
        MappingException dec = assertThrows(MappingException.class, () -> mapper("", List.of(), "", "ms", "")
                .map(record("cpu", null, new Struct(wide).put("d", new BigDecimal("1.00")), wide)));
        assertEquals("d", dec.column());

        MappingException noTable = assertThrows(MappingException.class,
                () -> mapper("kind", List.of(), "", "ms", "").map(record("cpu", null, Map.of("x", 1L), null)));
        assertEquals("kind", noTable.column());

        SinkRecord noTimestamp = new SinkRecord("cpu", 0, null, null, null, Map.of("x", 1L), 1);
        MappingException ts = assertThrows(MappingException.class,
                () -> mapper("", List.of(), "", "ms", "").map(noTimestamp));
        assertEquals("ts", ts.column());

        MappingException keyless = assertThrows(MappingException.class,
                () -> mapper("", List.of("host"), "", "ms", "").mapDelete(record("cpu", null, null, null)));
        assertTrue(keyless.getMessage().contains("key is null"), keyless.getMessage());
    }

    @Test
    void bytesAndBuffersBecomeBinaryAndBase64InJson() {
        Schema s = SchemaBuilder.struct().field("raw", Schema.BYTES_SCHEMA)
                .field("doc", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BYTES_SCHEMA).build()).build();
        MappedRow r = mapper("", List.of(), "", "ms", "").map(record("b", null, new Struct(s)
                .put("raw", ByteBuffer.wrap(new byte[] {1, 2})).put("doc", Map.of("k", new byte[] {3})), s));
        assertEquals(Map.of("k", "Aw=="), val(r, "doc"));
        accepted(r);
    }

    /**
     * tag.fields is "the primary key, in this order": whatever the order of a record's fields, a Struct's or a
     * schemaless Map's, the row lists its tags in the order of tag.fields, and the tombstone key of a delete too.
     */
    @Test
    void tagColumnsFollowTheOrderOfTagFieldsWhateverTheRecordsFieldOrder() {
        RecordMapper m = mapper("", List.of("region", "host"), "", "ms", "");
        Schema s = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("cpu", Schema.FLOAT64_SCHEMA)
                .field("region", Schema.STRING_SCHEMA).field("mem", Schema.FLOAT64_SCHEMA).build();
        Struct v = new Struct(s).put("host", "h1").put("cpu", 0.5).put("region", "eu").put("mem", 2.0);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("host", "h1");
        json.put("cpu", 0.5);
        json.put("region", "eu");
        json.put("mem", 2.0);
        for (MappedRow r : List.of(m.map(record("t", null, v, s)), m.map(record("t", null, json, null)))) {
            List<String> names = new ArrayList<>();
            for (TableSchema.Column c : r.schema().columns()) {
                names.add(c.name());
            }
            assertEquals(List.of("region", "host", "cpu", "mem", "ts"), names);
            assertEquals("eu", val(r, "region"));
            assertEquals("h1", val(r, "host"));
            assertEquals(0.5, val(r, "cpu"));
            assertEquals(2.0, val(r, "mem"));
            accepted(r);
        }
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("host", "h1");
        key.put("region", "eu");
        MappedRow del = m.mapDelete(record("t", key, null, null));
        assertEquals("region", del.schema().column(0).name());
        assertEquals("host", del.schema().column(1).name());
        assertEquals("eu", del.values()[0]);
    }
}
