package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.data.DataType;
import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import dev.sluice.kafka.connect.GreptimeSinkTask;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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

/**
 * How the sink maps record values to columns: tags and fields, nulls and defaults, logical types, nested values as
 * JSON, schemaless numbers, column type overrides, conflicts and overflows (dead-lettered naming the column), and a
 * new column's type decided by the earliest record. Checked against the rows and schemas the testkit stored.
 */
class SinkRecordMappingTest extends SinkTaskFixture {
    /**
     * An optional field with a default, absent from the Struct: Connect's Struct.get returns the default, so the
     * row holds the default value (a sink reading without defaults stores NULL).
     */
    @Test
    void anOptionalFieldWithADefaultStoresTheDefaultWhenUnset() throws Exception {
        Schema schema = SchemaBuilder.struct().name("d").field("host", Schema.STRING_SCHEMA)
                .field("level", SchemaBuilder.int32().optional().defaultValue(7).build())
                .field("tag2", SchemaBuilder.string().defaultValue("dflt").build())
                .build();
        start(Dlq.NONE);
        Struct s = new Struct(schema).put("host", "h");
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(7L, ((Number) row.get("level")).longValue(), "default of level: " + row);
        assertEquals("dflt", row.get("tag2"), "default of tag2: " + row);
    }

    /**
     * Every logical type optional and null on the first record of a new table: the row is stored with NULLs and
     * the columns (when created) have the README's types; a second record with values is stored in them.
     */
    @Test
    void nullLogicalTypesOnTheFirstRecordKeepTheirTypes() throws Exception {
        Schema dec = Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build();
        Schema schema = SchemaBuilder.struct().name("n").field("host", Schema.STRING_SCHEMA)
                .field("price", dec)
                .field("day", Date.builder().optional().build())
                .field("tod", Time.builder().optional().build())
                .field("seen", Timestamp.builder().optional().build())
                .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
                .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
                .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
                .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
                .field("s", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        start(Dlq.NONE);
        Struct empty = new Struct(schema).put("host", "a");
        Struct full = new Struct(schema).put("host", "b").put("price", new BigDecimal("12.34"))
                .put("day", new java.util.Date(86_400_000L * 3)).put("tod", new java.util.Date(1_234L))
                .put("seen", new java.util.Date(T0)).put("i16", (short) -300).put("i32", 70_000)
                .put("i64", 1L << 40).put("f64", 0.25).put("s", "str");
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, empty, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, full, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.Decimal128, typeOf(ts, "price"));
        assertEquals(DataType.Date, typeOf(ts, "day"));
        assertEquals(DataType.TimeMillisecond, typeOf(ts, "tod"));
        assertEquals(DataType.TimestampMillisecond, typeOf(ts, "seen"));
        assertEquals(DataType.Int16, typeOf(ts, "i16"));
        assertEquals(DataType.Int32, typeOf(ts, "i32"));
        assertEquals(DataType.Int64, typeOf(ts, "i64"));
        assertEquals(DataType.Float64, typeOf(ts, "f64"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (String c : List.of("price", "day", "tod", "seen", "i16", "i32", "i64", "f64", "s")) {
            assertNull(rows.get("a").get(c), "null " + c);
        }
        assertEquals(0, new BigDecimal("12.34").compareTo((BigDecimal) rows.get("b").get("price")));
        assertEquals(-300L, ((Number) rows.get("b").get("i16")).longValue());
        assertEquals(70_000L, ((Number) rows.get("b").get("i32")).longValue());
        assertEquals(1L << 40, ((Number) rows.get("b").get("i64")).longValue());
        assertEquals(1_234L, ((Number) rows.get("b").get("tod")).longValue());
    }

    /**
     * ARRAY, MAP (with non-string keys) and nested STRUCT fields become Json columns whose text is valid JSON with
     * the content: struct field names, map keys as text, array elements in order, nulls as null.
     */
    @Test
    void arraysMapsWithIntKeysAndNestedStructsBecomeValidJson() throws Exception {
        Schema inner = SchemaBuilder.struct().name("inner").field("a", Schema.INT32_SCHEMA)
                .field("b", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema schema = SchemaBuilder.struct().name("outer").field("host", Schema.STRING_SCHEMA)
                .field("arr", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build())
                .field("byId", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
                .field("nested", inner)
                .field("structs", SchemaBuilder.array(inner).build())
                .build();
        Map<Integer, String> byId = new TreeMap<>(Map.of(1, "one", 20, "twenty"));
        List<Long> arr = new ArrayList<>(List.of(3L, 1L));
        arr.add(null);
        Struct s = new Struct(schema).put("host", "h").put("arr", arr).put("byId", byId)
                .put("nested", new Struct(inner).put("a", 5).put("b", "q\"uote"))
                .put("structs", List.of(new Struct(inner).put("a", 1), new Struct(inner).put("a", 2).put("b", "z")));
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        TableSchema ts = server.schema(TOPIC);
        for (String c : List.of("arr", "byId", "nested", "structs")) {
            assertEquals(DataType.Json, typeOf(ts, c), c);
        }
        Map<String, Object> row = server.rows(TOPIC).get(0);
        ObjectMapper om = new ObjectMapper();
        JsonNode a = om.readTree(String.valueOf(row.get("arr")));
        assertEquals(3, a.size());
        assertEquals(3, a.get(0).asInt());
        assertTrue(a.get(2).isNull());
        JsonNode m = om.readTree(String.valueOf(row.get("byId")));
        assertEquals("one", m.get("1").asText());
        assertEquals("twenty", m.get("20").asText());
        JsonNode n = om.readTree(String.valueOf(row.get("nested")));
        assertEquals(5, n.get("a").asInt());
        assertEquals("q\"uote", n.get("b").asText());
        JsonNode st = om.readTree(String.valueOf(row.get("structs")));
        assertEquals(2, st.get(1).get("a").asInt());
        assertEquals("z", st.get(1).get("b").asText());
        assertTrue(st.get(0).get("b") == null || st.get(0).get("b").isNull());
    }

    /**
     * Schemaless integers of every Java width (Byte, Short, Integer, Long, as JSON converters produce) are one
     * integer type: they all go into the same Int64 column, none is refused.
     */
    @Test
    void schemalessIntegersOfEveryJavaWidthShareOneInt64Column() throws Exception {
        Ctx ctx = start(Dlq.OK);
        Object[] values = {(byte) 1, (short) 2, 3, 4L, java.math.BigInteger.valueOf(5)};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            recs.add(rec(P0, i, metricValue(P0, i, values[i])));
        }
        task.put(recs.subList(0, 1));
        awaitCommitted(P0, 1);
        task.put(recs.subList(1, recs.size()));
        awaitCommitted(P0, values.length);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList(), "none refused");
        assertEquals(DataType.Int64, typeOf(server.schema(TOPIC), "cpu"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < values.length; i++) {
            assertEquals(i + 1L, ((Number) rows.get(host(P0, i)).get("cpu")).longValue());
        }
    }

    /**
     * column.types makes a schemaless field whose values are sometimes whole numbers and sometimes not keep one
     * type (README): 1, 1.5 and 2 in separate batches are all stored as Float64.
     */
    @Test
    void columnTypesOverrideKeepsOneTypeAcrossBatchesOfWholeAndFractionalNumbers() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES, "cpu:Float64");
        task.put(List.of(metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        task.put(List.of(metric(P0, 1, 1.5)));
        awaitCommitted(P0, 2);
        task.put(List.of(metric(P0, 2, 2L)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(1.0, rows.get(host(P0, 0)).get("cpu"));
        assertEquals(1.5, rows.get(host(P0, 1)).get("cpu"));
        assertEquals(2.0, rows.get(host(P0, 2)).get("cpu"));
    }

    /**
     * Without an override, a schemaless field first seen as an integer then as a fraction: the later value does
     * not fit the Int64 column and goes to the DLQ (README), naming the column; the earlier row is untouched.
     */
    @Test
    void aSchemalessTypeConflictInALaterBatchGoesToTheDlqNamingTheColumn() throws Exception {
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        task.put(List.of(metric(P0, 1, 1.5), metric(P0, 2, 3L)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=cpu"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /**
     * The documented default time-index column for the record timestamp is {@code ts}, millisecond precision, and
     * the default tag list is empty (every field a field column) when tag.fields is not set.
     */
    @Test
    void withoutTagFieldsEveryFieldIsAFieldColumnAndTheTimeIndexIsTsInMilliseconds() throws Exception {
        Ctx ctx = new Ctx(Dlq.NONE);
        task = new GreptimeSinkTask();
        task.initialize(ctx);
        Map<String, String> p = props();
        p.remove(GreptimeSinkConfig.TAGS);
        task.start(p);
        ctx.assignment.add(P0);
        task.open(List.of(P0));
        task.put(List.of(metric(P0, 0, 1.0)));
        awaitCommitted(P0, 1);
        TableSchema ts = server.schema(TOPIC);
        assertEquals("ts", ts.column(ts.timestampIndex()).name());
        assertEquals(DataType.TimestampMillisecond, ts.column(ts.timestampIndex()).dataType());
        assertEquals(T0, server.rows(TOPIC).get(0).get("ts"));
    }

    /**
     * A tag (tag.fields) present in some records and absent in others: the absent one is a NULL tag (GreptimeDB tags
     * are nullable), stored, not refused, and both rows are distinct.
     */
    @Test
    void aMissingTagValueIsStoredAsNull() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TAGS, "host,region");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("region", "eu");
        Map<String, Object> b = metricValue(P0, 1, 2.0);
        task.put(List.of(rec(P0, 0, a)));
        awaitCommitted(P0, 1);
        task.put(List.of(rec(P0, 1, b)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals("eu", rows.get(host(P0, 0)).get("region"));
        assertNull(rows.get(host(P0, 1)).get("region"));
    }

    /**
     * A Struct schema evolving a field's type (INT32, then STRING under the same name): the later records do not
     * fit the existing column, so they go to the DLQ naming the column; the partition commits past them.
     */
    @Test
    void aStructFieldChangingTypeBetweenSchemaVersionsGoesToTheDlqNamingTheColumn() throws Exception {
        Schema v1 = SchemaBuilder.struct().name("e").version(1).field("host", Schema.STRING_SCHEMA)
                .field("code", Schema.INT32_SCHEMA).build();
        Schema v2 = SchemaBuilder.struct().name("e").version(2).field("host", Schema.STRING_SCHEMA)
                .field("code", Schema.STRING_SCHEMA).build();
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, v1, new Struct(v1).put("host", "a").put("code", 1), 0,
                T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        task.put(List.of(
                new SinkRecord(TOPIC, 0, null, null, v2, new Struct(v2).put("host", "b").put("code", "E1"), 1, T0,
                        TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, v1, new Struct(v1).put("host", "c").put("code", 3), 2, T0,
                        TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("column=code"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of("a", "c"), storedHosts(TOPIC));
    }

    /**
     * A Struct value in a SinkRecord without a value schema (some SMTs drop it): the Struct's own schema is used,
     * the record is stored with its typed columns.
     */
    @Test
    void aStructValueWithoutARecordSchemaUsesTheStructsOwnSchema() throws Exception {
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("n", Schema.INT16_SCHEMA)
                .build();
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, null, new Struct(schema).put("host", "a")
                .put("n", (short) 3), 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        assertEquals(DataType.Int16, typeOf(server.schema(TOPIC), "n"));
        assertEquals(3L, ((Number) server.rows(TOPIC).get(0).get("n")).longValue());
    }

    /**
     * A value field named like timestamp.column (default ts) while the time index is the record timestamp, holding
     * text: it cannot be both the time index and a text column, so the record must not be stored with its ts text
     * silently dropped: it goes to the DLQ (naming ts) or the text survives somewhere in the row.
     */
    @Test
    void aValueFieldCollidingWithTheTimestampColumnIsNotDroppedSilently() throws Exception {
        Ctx ctx = start(Dlq.OK);
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("ts", "hello");
        task.put(List.of(rec(P0, 0, v), metric(P0, 1, 2.0)));
        awaitCommitted(P0, 2);
        boolean dlq = ctx.dlq.stream().anyMatch(r -> r.kafkaOffset() == 0);
        Map<String, Object> row = rowsByHost(TOPIC).get(host(P0, 0));
        boolean kept = row != null && row.containsValue("hello");
        assertTrue(dlq || kept, "record 0 committed as " + row + ": its ts text was dropped silently");
        assertTrue(storedHosts(TOPIC).contains(host(P0, 1)));
    }

    /**
     * A Decimal without connect.decimal.precision gets DECIMAL(38, s) (README); a value with more than 38 digits does
     * not fit and goes to the DLQ; a date before 1970 is stored as that date.
     */
    @Test
    void aDecimalOverThirtyEightDigitsGoesToTheDlqAndAPre1970DateIsKept() throws Exception {
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("d", Decimal.schema(2))
                .field("day", Date.SCHEMA).build();
        Ctx ctx = start(Dlq.OK);
        java.util.Date day = new java.util.Date(java.time.LocalDate.of(1960, 6, 15).toEpochDay() * 86_400_000L);
        Struct ok = new Struct(schema).put("host", "ok").put("d", new BigDecimal("123456789012345678901234567890.12"))
                .put("day", day);
        Struct wide = new Struct(schema).put("host", "wide").put("d", new BigDecimal("1" + "0".repeat(40) + ".00"))
                .put("day", day);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, ok, 0, T0, TimestampType.CREATE_TIME),
                new SinkRecord(TOPIC, 0, null, null, schema, wide, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(new dev.sluice.data.DecimalType(38, 2), server.schema(TOPIC).column(server.schema(TOPIC).indexOf("d"))
                .decimalType());
        Map<String, Object> row = rowsByHost(TOPIC).get("ok");
        assertEquals(0, new BigDecimal("123456789012345678901234567890.12").compareTo((BigDecimal) row.get("d")));
        assertEquals(java.time.LocalDate.of(1960, 6, 15), row.get("day"));
    }

    /**
     * Config doc of tag.fields: "Fields stored as tag columns (GreptimeDB's primary key, in this order)". With
     * tag.fields=region,host and a record whose fields come host first, the table the sink creates must have the
     * primary key (region, host). Guards against: (host, region): the tags follow the record's field order (a schemaless
     * JSON object's key order, or a Struct's field order), so the key order of a new table depends on the first
     * record rather than on the configuration (GreptimeDB makes TAG columns the primary key in request order
     * of a row insert).
     */
    @Test
    void tagsFollowTagFieldsOrder() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TAGS, "region,host");
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", "h1");
        v.put("cpu", 0.5);
        v.put("region", "eu");
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        List<String> tags = new ArrayList<>();
        for (TableSchema.Column c : server.schema(TOPIC).columns()) {
            if (c.semanticType() == dev.sluice.data.SemanticType.Tag) {
                tags.add(c.name());
            }
        }
        assertEquals(List.of("region", "host"), tags);
    }

    /** Column names are free-form (dots, spaces, unicode) and stored as given. */
    @Test
    void freeFormColumnNamesAreKept() throws Exception {
        start(Dlq.NONE);
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", "h1");
        v.put("cpu.usage", 0.5);
        v.put("disk free", 10L);
        v.put("température", 21.5);
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(0.5, row.get("cpu.usage"));
        assertEquals(10L, row.get("disk free"));
        assertEquals(21.5, row.get("température"));
    }

    /**
     * A new table, one put with partition 1's record first (cpu = 1.5) and partition 0's second (cpu = 1): the
     * earliest record of the put decides the column type (README: "decided by the earliest record"), so cpu is
     * Float64 and the 1.5 record is stored; the integer record is stored or dead-lettered, never lost.
     */
    @Test
    void acrossPartitionsOfOnePutTheEarliestRecordDecidesANewColumnsType() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.FLUSH_INTERVAL, "60000");
        task.put(List.of(metric(P1, 0, 1.5), metric(P0, 0, 1L)));
        awaitCommitted(P0, 1);
        awaitCommitted(P1, 1);
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        assertTrue(storedHosts(TOPIC).contains(host(P1, 0)), "the earliest record is stored");
        assertFalse(ctx.dlq.stream().anyMatch(r -> r.kafkaPartition() == 1), "the earliest record not refused");
        assertEquals(2, storedHosts(TOPIC).size() + ctx.dlq.size());
    }

    /**
     * A new table, the earliest record's (cpu = 1.5) request failing retryably once, a later record with cpu text
     * in the same put: the earliest record still decides (README), so cpu is Float64 and the text record goes to
     * the DLQ, even though the text row's batch could have reached the server first.
     */
    @Test
    void theEarliestRecordDecidesANewColumnsTypeEvenWhenItsRequestIsRetried() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.RETRY_ATTEMPTS, "10", GreptimeSinkConfig.IN_FLIGHT, "4");
        server.faults().failNext(1, StatusCode.StorageUnavailable, "edge: first write busy");
        task.put(List.of(metric(P0, 0, 1.5), metric(P0, 1, "text"), metric(P0, 2, 2.5)));
        awaitCommitted(P0, 3);
        assertEquals(DataType.Float64, typeOf(server.schema(TOPIC), "cpu"));
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /**
     * Logical types and bytes inside a nested Struct (a Json column): the JSON text is valid and keeps the decimal's
     * exact value, the timestamp (epoch milliseconds or ISO-8601 text) and the bytes (as some text or array).
     */
    @Test
    void logicalTypesInsideANestedStructBecomeValidJsonWithTheirValues() throws Exception {
        Schema inner = SchemaBuilder.struct().name("in").field("price", Decimal.schema(2))
                .field("at", Timestamp.SCHEMA).field("raw", Schema.BYTES_SCHEMA)
                .field("day", Date.SCHEMA).build();
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("detail", inner).build();
        java.util.Date day = new java.util.Date(java.time.LocalDate.of(2024, 2, 29).toEpochDay() * 86_400_000L);
        Struct s = new Struct(schema).put("host", "h").put("detail", new Struct(inner)
                .put("price", new BigDecimal("12345678901234567.89")).put("at", new java.util.Date(T0))
                .put("raw", new byte[] {1, 2, (byte) 255}).put("day", day));
        start(Dlq.NONE);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, s, 0, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 1);
        assertEquals(DataType.Json, typeOf(server.schema(TOPIC), "detail"));
        String text = String.valueOf(server.rows(TOPIC).get(0).get("detail"));
        JsonNode n = new ObjectMapper()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .readTree(text);
        assertEquals(0, new BigDecimal("12345678901234567.89").compareTo(n.get("price").decimalValue()),
                "exact decimal in " + text);
        JsonNode at = n.get("at");
        assertTrue(at.asLong() == T0 || at.asText().startsWith(java.time.Instant.ofEpochMilli(T0).toString()
                .substring(0, 19)), "timestamp in " + text);
        assertNotNull(n.get("raw"), "bytes kept in " + text);
        assertNotNull(n.get("day"), "date kept in " + text);
    }

    /**
     * column.types overrides of schemaless values, from the documented list: an integer into UInt32, a fraction
     * into Float32 and into Decimal128(10,2), an integer into TimestampMicrosecond (a non-time-index column), text
     * into Json. Each column has the override's type and the value converted.
     */
    @Test
    void columnTypesOverridesConvertSchemalessValuesToTheDocumentedTypes() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES,
                "n:UInt32,f:Float32,d:Decimal128(10,2),seen:TimestampMicrosecond,doc:Json");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("n", 5L);
        v.put("f", 0.5);
        v.put("d", 1.25);
        v.put("seen", 123L);
        v.put("doc", "{\"k\":[1,2]}");
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        assertEquals(List.of(), ctx.dlqErrors.stream().map(Throwable::getMessage).toList());
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.UInt32, typeOf(ts, "n"));
        assertEquals(DataType.Float32, typeOf(ts, "f"));
        assertEquals(DataType.Decimal128, typeOf(ts, "d"));
        assertEquals(new dev.sluice.data.DecimalType(10, 2), ts.column(ts.indexOf("d")).decimalType());
        assertEquals(DataType.TimestampMicrosecond, typeOf(ts, "seen"));
        assertEquals(DataType.Json, typeOf(ts, "doc"));
        Map<String, Object> row = server.rows(TOPIC).get(0);
        assertEquals(5L, ((Number) row.get("n")).longValue());
        assertEquals(0.5f, ((Number) row.get("f")).floatValue());
        assertEquals(0, new BigDecimal("1.25").compareTo((BigDecimal) row.get("d")));
        assertEquals(123L, ((Number) row.get("seen")).longValue());
        assertEquals(2, new ObjectMapper().readTree(String.valueOf(row.get("doc"))).get("k").get(1).asInt());
    }

    /**
     * Values that do not fit an overridden narrow type (README: "a value that does not fit its column" goes to the
     * DLQ at once): 300 into Int8, -1 into UInt32, 5,000,000,000 into UInt32, 1e40 into Float32. None is stored
     * wrapped or saturated; each goes to the DLQ naming its column, and the fitting record is stored.
     */
    @Test
    void valuesOverflowingAnOverriddenNarrowTypeGoToTheDlqInsteadOfWrapping() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.COLUMN_TYPES, "i8:Int8,u32:UInt32,f32:Float32");
        Object[][] cases = {{"i8", 300L}, {"u32", -1L}, {"u32", 5_000_000_000L}, {"f32", 1e40}};
        List<SinkRecord> recs = new ArrayList<>();
        Map<String, Object> fits = metricValue(P0, 0, 1.0);
        fits.put("i8", 7L);
        fits.put("u32", 7L);
        fits.put("f32", 0.25);
        recs.add(rec(P0, 0, fits));
        for (int i = 0; i < cases.length; i++) {
            Map<String, Object> v = metricValue(P0, i + 1, 1.0);
            v.put((String) cases[i][0], cases[i][1]);
            recs.add(rec(P0, i + 1, v));
        }
        task.put(recs);
        awaitCommitted(P0, cases.length + 1);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < cases.length; i++) {
            Map<String, Object> row = rows.get(host(P0, i + 1));
            assertNull(row, cases[i][0] + "=" + cases[i][1] + " stored as " + row);
        }
        assertEquals(List.of(1L, 2L, 3L, 4L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).sorted().toList());
        for (int i = 0; i < cases.length; i++) {
            String msg = ctx.dlqErrors.get(i).getMessage();
            assertTrue(msg.contains("column="), "names the column: " + msg);
        }
        assertEquals(7L, ((Number) rows.get(host(P0, 0)).get("i8")).longValue());
    }
}
