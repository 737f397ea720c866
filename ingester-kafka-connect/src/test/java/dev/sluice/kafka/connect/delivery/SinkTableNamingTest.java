package dev.sluice.kafka.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.kafka.connect.GreptimeSinkConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Which table each record goes to: the topic through the regex and the template, or a field; names that are blank,
 * spaced, numeric or badly charactered go to the dead-letter queue; many field-routed tables in one put.
 */
class SinkTableNamingTest extends SinkTaskFixture {
    /**
     * table.name.regex is matched against the whole topic name: a topic it matches is renamed with $1 groups, then
     * the template applies; a topic it only partly matches keeps its name.
     */
    @Test
    void theTableRegexMatchesWholeTopicsOnlyAndTheTemplateAppliesAfterIt() throws Exception {
        TopicPartition prod = new TopicPartition("prod.cpu", 0);
        TopicPartition other = new TopicPartition("xprod.cpu", 0);
        startOn(List.of(prod, other), Dlq.NONE, GreptimeSinkConfig.TABLE_REGEX, "prod\\.(.*)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "m_$1", GreptimeSinkConfig.TABLE_FORMAT, "k_${topic}");
        task.put(List.of(metric(prod, 0, 1.0), metric(other, 0, 2.0)));
        awaitCommitted(prod, 1);
        awaitCommitted(other, 1);
        assertTrue(server.tables().contains("k_m_cpu"), "renamed then templated: " + server.tables());
        assertTrue(server.tables().contains("k_xprod.cpu"), "partial match not renamed: " + server.tables());
        assertEquals(2, server.tables().size(), server.tables().toString());
    }

    /**
     * A template with ${topic} twice, and a topic whose renamed name starts with a digit: the first is used with
     * both replaced; the second's records cannot be written (README: refused per record) and go to the DLQ, while
     * the partition commits past them.
     */
    @Test
    void aTemplateWithTopicTwiceAndATopicRenamedToADigitFirstName() throws Exception {
        TopicPartition good = new TopicPartition("cpu", 0);
        TopicPartition bad = new TopicPartition("v9", 0);
        Ctx ctx = startOn(List.of(good, bad), Dlq.OK, GreptimeSinkConfig.TABLE_REGEX, "v(\\d)",
                GreptimeSinkConfig.TABLE_REPLACEMENT, "$1", GreptimeSinkConfig.TABLE_FORMAT, "${topic}${topic}");
        task.put(List.of(metric(good, 0, 1.0), metric(bad, 0, 2.0), metric(good, 1, 3.0)));
        awaitCommitted(good, 2);
        awaitCommitted(bad, 1);
        assertEquals(2, server.rowCount("cpucpu"));
        assertEquals(List.of("v9"), ctx.dlq.stream().map(SinkRecord::topic).toList());
        assertEquals(List.of("cpucpu"), server.tables());
    }

    /**
     * table.name.field values that are not usable names (blank, with a space, a number, a ';'): each record
     * goes to the DLQ and the others of the partition are stored and committed; the field is never a column.
     */
    @Test
    void fieldBasedTableNamesThatAreBlankSpacedNumericOrBadlyCharacteredGoToTheDlq() throws Exception {
        Ctx ctx = start(Dlq.OK, GreptimeSinkConfig.TABLE_FIELD, "tbl");
        Object[] names = {"good", "", "has space", 42L, "good", "semi;colon"};
        List<SinkRecord> recs = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            Map<String, Object> v = metricValue(P0, i, 1.0 * i);
            if (names[i] != null) {
                v.put("tbl", names[i]);
            }
            recs.add(rec(P0, i, v));
        }
        task.put(recs);
        awaitCommitted(P0, names.length);
        List<Long> dlq = ctx.dlq.stream().map(SinkRecord::kafkaOffset).sorted().toList();
        assertEquals(List.of(1L, 2L, 3L, 5L), dlq,
                "blank, spaced, numeric (digit-first) and ';' names dead-lettered; tables " + server.tables());
        assertTrue(server.tables().contains("good"));
        assertEquals(Set.of(host(P0, 0), host(P0, 4)), storedHosts("good"));
        assertTrue(server.schema("good").indexOf("tbl") < 0);
        long stored = 0;
        for (String t : server.tables()) {
            stored += server.rowCount(t);
        }
        assertEquals(names.length, stored + dlq.size(), "each record stored or dead-lettered once");
    }

    /**
     * table.name.field spreading one put over 60 tables (two records each, interleaved, two partitions): every
     * table gets exactly its records and both partitions commit everything.
     */
    @Test
    void oneInterleavedPutOverSixtyFieldRoutedTablesStoresEachRecordInItsTable() throws Exception {
        start(Dlq.NONE, GreptimeSinkConfig.TABLE_FIELD, "tbl", GreptimeSinkConfig.BATCH_ROWS, "7");
        List<SinkRecord> recs = new ArrayList<>();
        long[] next = new long[2];
        for (int round = 0; round < 2; round++) {
            for (int t = 0; t < 60; t++) {
                TopicPartition tp = t % 2 == 0 ? P0 : P1;
                long o = next[tp.partition()]++;
                Map<String, Object> v = metricValue(tp, o, 1.0 * t);
                v.put("tbl", "t_" + t);
                recs.add(rec(tp, o, v));
            }
        }
        task.put(recs);
        awaitCommitted(P0, next[0]);
        awaitCommitted(P1, next[1]);
        assertEquals(60, server.tables().size());
        for (int t = 0; t < 60; t++) {
            assertEquals(2, server.rowCount("t_" + t), "t_" + t);
            for (Map<String, Object> r : server.rows("t_" + t)) {
                assertEquals(1.0 * t, r.get("cpu"), "t_" + t + " holds only its records: " + r);
            }
        }
    }
}
