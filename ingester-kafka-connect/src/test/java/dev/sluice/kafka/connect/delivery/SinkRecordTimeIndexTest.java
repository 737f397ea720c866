package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The time index of each stored row: the Kafka timestamp or a field, in the configured unit, ISO text with offsets
 * and fractions, values before 1970; a record without a usable time goes to the dead-letter queue naming the field.
 */
class SinkRecordTimeIndexTest extends SinkTaskFixture {
    /**
     * No timestamp.field and a record without a Kafka timestamp (null, NO_TIMESTAMP_TYPE): there is no time index
     * (README: "no time index" is a record the sink cannot map), so it goes to the DLQ; the others are stored.
     */
    @Test
    void aRecordWithoutAKafkaTimestampGoesToTheDlqWhenTheTimeIndexIsTheRecordTimestamp() throws Exception {
        Ctx ctx = start(Dlq.OK);
        task.put(List.of(metric(P0, 0, 1.0),
                new SinkRecord(TOPIC, 0, null, null, null, metricValue(P0, 1, 2.0), 1, null,
                        TimestampType.NO_TIMESTAMP_TYPE),
                metric(P0, 2, 3.0)));
        awaitCommitted(P0, 3);
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(Set.of(host(P0, 0), host(P0, 2)), storedHosts(TOPIC));
    }

    /** A timestamp field present but null is "no time index": DLQ, naming the field. */
    @Test
    void aNullTimestampFieldGoesToTheDlqNamingTheField() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TS_FIELD, "at");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("at", null);
        Map<String, Object> ok = metricValue(P0, 1, 2.0);
        ok.put("at", 5L);
        task.put(List.of(rec(P0, 0, v), rec(P0, 1, ok)));
        awaitCommitted(P0, 2);
        assertEquals(List.of(0L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
        assertTrue(ctx.dlqErrors.get(0).getMessage().contains("at"), ctx.dlqErrors.get(0).getMessage());
        assertEquals(Set.of(host(P0, 1)), storedHosts(TOPIC));
    }

    /**
     * timestamp.unit=ns with ISO-8601 text and numbers: the time index is TimestampNanosecond, ISO text keeps its
     * nanosecond fraction exactly, and a negative (pre-1970) number is stored as is.
     */
    @Test
    void nanosecondTimeIndexKeepsIsoFractionsExactlyAndPre1970Values() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("at", "2024-03-01T10:00:00.123456789Z");
        Map<String, Object> b = metricValue(P0, 1, 2.0);
        b.put("at", -1_500_000_000L);
        task.put(List.of(rec(P0, 0, a), rec(P0, 1, b)));
        awaitCommitted(P0, 2);
        TableSchema ts = server.schema(TOPIC);
        assertEquals(DataType.TimestampNanosecond, ts.column(ts.timestampIndex()).dataType());
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        assertEquals(1_709_287_200_123_456_789L, rows.get(host(P0, 0)).get("at"));
        assertEquals(-1_500_000_000L, rows.get(host(P0, 1)).get("at"));
    }

    /**
     * Expected (config doc of timestamp.unit: "Unit of a numeric timestamp.field, and the precision of the time
     * index column"): with timestamp.unit=ns, a Struct whose timestamp.field is a Connect Timestamp lands in the
     * nanosecond time index (its milliseconds times 10^6), the column type numeric and ISO values of the same
     * topic get. Guards against: the sink sends the Connect Timestamp as TIMESTAMP_MILLISECOND, so on a table created by
     * a numeric/ISO record GreptimeDB refuses it ("column at expect type Timestamp(Nanosecond), given:
     * TIMESTAMP_MILLISECOND") and the task fails naming the record (or dead-letters it); on a table the Struct
     * creates, the time index silently becomes milliseconds despite timestamp.unit=ns.
     */
    @Test
    void aConnectTimestampFieldFollowsTimestampUnitNanoseconds() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> a = metricValue(P0, 0, 1.0);
        a.put("at", 5L);
        task.put(List.of(rec(P0, 0, a)));
        awaitCommitted(P0, 1);
        Schema schema = SchemaBuilder.struct().field("host", Schema.STRING_SCHEMA).field("at", Timestamp.SCHEMA)
                .field("cpu", Schema.FLOAT64_SCHEMA).build();
        Struct c = new Struct(schema).put("host", host(P0, 1)).put("at", new java.util.Date(T0 + 7)).put("cpu", 3.0);
        task.put(List.of(new SinkRecord(TOPIC, 0, null, null, schema, c, 1, T0, TimestampType.CREATE_TIME)));
        awaitCommitted(P0, 2);
        assertEquals((T0 + 7) * 1_000_000L, rowsByHost(TOPIC).get(host(P0, 1)).get("at"));
    }

    /**
     * ISO-8601 text beyond what a nanosecond time index holds (year 2300: more than 2^63 ns since 1970) must not be
     * stored with a wrapped-around value: it is a value that does not fit its column, so it goes to the DLQ.
     */
    @Test
    void aFarFutureIsoTimestampThatOverflowsNanosecondsGoesToTheDlqInsteadOfWrapping() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "ns");
        Map<String, Object> near = metricValue(P0, 0, 1.0);
        near.put("at", "2024-01-01T00:00:00Z");
        Map<String, Object> far = metricValue(P0, 1, 2.0);
        far.put("at", "2300-01-01T00:00:00Z");
        task.put(List.of(rec(P0, 0, near), rec(P0, 1, far)));
        awaitCommitted(P0, 2);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        if (rows.containsKey(host(P0, 1))) {
            fail("year 2300 stored as " + rows.get(host(P0, 1)).get("at") + " ns (wrapped), expected the DLQ");
        }
        assertEquals(List.of(1L), ctx.dlq.stream().map(SinkRecord::kafkaOffset).toList());
    }

    /**
     * A numeric field in seconds: 10^11 s (year 5138) fits TimestampSecond and is stored exactly (the unit is the
     * column's precision, no conversion).
     */
    @Test
    void aNumericTimestampInSecondsIsStoredWithoutConversion() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at", GreptimeSinkConfig.TS_UNIT, "s");
        Map<String, Object> v = metricValue(P0, 0, 1.0);
        v.put("at", 100_000_000_000L);
        task.put(List.of(rec(P0, 0, v)));
        awaitCommitted(P0, 1);
        assertEquals(100_000_000_000L, server.rows(TOPIC).get(0).get("at"));
    }

    /**
     * ISO-8601 texts with an offset and with a fraction (README: "an ISO-8601 instant text"): each is the instant
     * it names, converted to UTC milliseconds.
     */
    @Test
    void isoTimestampsWithOffsetsAndFractionsNameTheirInstant() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TS_FIELD, "at");
        String[] texts = {"2024-03-01T12:00:00+02:00", "2024-03-01T10:00:00.5Z", "2024-03-01T05:30:00-04:30"};
        long[] expected = {1_709_287_200_000L, 1_709_287_200_500L, 1_709_287_200_000L};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0);
            v.put("at", texts[i]);
            recs.add(rec(P0, i, v));
        }
        task.put(recs);
        awaitCommitted(P0, texts.length);
        Map<String, Map<String, Object>> rows = rowsByHost(TOPIC);
        for (int i = 0; i < texts.length; i++) {
            assertEquals(expected[i], rows.get(host(P0, i)).get("at"), texts[i]);
        }
    }
}
