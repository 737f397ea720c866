package dev.sluice.kafka.connect.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * An estimate of the bytes a record takes once a converter serialised it for the dead-letter queue: the data of
 * its key, value and headers (text as UTF-8, binary as its length, 8 bytes per number, field and map key names),
 * plus a fixed allowance for the record's framing and, when Connect adds them, its error context headers (topic,
 * partition, offset, connector, task, stage, exception class, message and stack trace). A converter's own framing
 * (JSON quotes and punctuation, a schema envelope) comes on top of the data, so the estimate is a lower bound of
 * what the producer sees for JSON and close to it for Avro or Protobuf.
 */
public final class RecordSize {
    /** Record batch and record headers, timestamps, lengths. */
    static final long FRAMING = 512;
    /** Connect's error context headers, stack trace included. */
    static final long CONTEXT_HEADERS = 16 * 1024;

    private RecordSize() {
    }

    /**
     * Estimates a record's serialised size.
     *
     * @param record the record
     * @param contextHeaders whether Connect adds its error context headers
     * @return bytes
     */
    public static long estimate(SinkRecord record, boolean contextHeaders) {
        long n = FRAMING + (contextHeaders ? CONTEXT_HEADERS : 0) + of(record.key()) + of(record.value());
        for (Header h : record.headers()) {
            n += utf8(h.key()) + of(h.value());
        }
        return n;
    }

    private static long of(Object v) {
        if (v == null) {
            return 0;
        }
        if (v instanceof CharSequence s) {
            return utf8(s.toString());
        }
        if (v instanceof byte[] b) {
            return b.length;
        }
        if (v instanceof ByteBuffer b) {
            return b.remaining();
        }
        if (v instanceof Number || v instanceof java.util.Date) {
            return 8;
        }
        if (v instanceof Boolean) {
            return 1;
        }
        if (v instanceof Struct s) {
            long n = 0;
            for (Field f : s.schema().fields()) {
                n += utf8(f.name()) + of(s.get(f));
            }
            return n;
        }
        if (v instanceof Map<?, ?> m) {
            long n = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                n += of(e.getKey()) + of(e.getValue());
            }
            return n;
        }
        if (v instanceof Collection<?> c) {
            long n = 0;
            for (Object o : c) {
                n += of(o);
            }
            return n;
        }
        return utf8(String.valueOf(v));
    }

    private static long utf8(String s) {
        if (s == null) {
            return 0;
        }
        // Exact for ASCII, an upper bound of 3 bytes per char otherwise, without encoding large strings twice.
        int len = s.length();
        if (len < 4096) {
            return s.getBytes(StandardCharsets.UTF_8).length;
        }
        for (int i = 0; i < len; i++) {
            if (s.charAt(i) >= 0x80) {
                return (long) len * 3;
            }
        }
        return len;
    }
}
