package dev.sluice.bench.cost;

import dev.sluice.bench.run.ModeRunner;
import dev.sluice.bench.run.RunStats;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The cost benchmark's baseline: the workload making the same rows, batch by batch and on as many threads as a
 * path run, with no client at all. Every value is handed over the way the path hands it to the client
 * ({@code Object[]} rows or the typed appender's calls) and read once (a number's value, a text's length), so what
 * the benchmark's own generator costs, pool look-ups and cache misses on its pooled values included, is measured
 * apart from the client's cost.
 */
final class WorkloadOnly implements ModeRunner {
    /** Where every worker's checksum ends, so the JIT cannot drop the reads. */
    static final AtomicLong SINK = new AtomicLong();

    @Override
    public String name() {
        return "workload";
    }

    @Override
    public void work(Run run, AtomicLong next, RunStats stats) {
        Reader reader = new Reader(run.workload().schema());
        boolean typed = run.workload().typed();
        long b;
        while ((b = next.getAndIncrement()) < run.batches()) {
            int n = run.rowsOf(b);
            stats.sent(n);
            if (typed) {
                run.workload().append(reader, b * run.batch(), n);
            } else {
                run.workload().fill(reader, b * run.batch(), n);
            }
            stats.acked(n);
        }
        SINK.addAndGet(reader.sum);
    }

    /** Reads each value once, as a client must before it can encode it. */
    private static final class Reader implements Consumer<Object[]>, RowAppender {
        private final TableSchema schema;
        long sum;

        Reader(TableSchema schema) {
            this.schema = schema;
        }

        @Override
        public void accept(Object[] row) {
            for (Object v : row) {
                sum += read(v);
            }
        }

        private static long read(Object v) {
            if (v instanceof Double d) {
                return Double.doubleToRawLongBits(d);
            } else if (v instanceof Long l) {
                return l;
            } else if (v instanceof CharSequence s) {
                return s.length();
            }
            return v == null ? 0 : v.getClass().hashCode();
        }

        @Override
        public RowAppender setBoolean(int column, boolean value) {
            sum += value ? 1 : 0;
            return this;
        }

        @Override
        public RowAppender setLong(int column, long value) {
            sum += value;
            return this;
        }

        @Override
        public RowAppender setDouble(int column, double value) {
            sum += Double.doubleToRawLongBits(value);
            return this;
        }

        @Override
        public RowAppender setString(int column, CharSequence value) {
            sum += value.length();
            return this;
        }

        @Override
        public RowAppender setUtf8(int column, byte[] utf8, int offset, int length) {
            sum += length;
            return this;
        }

        @Override
        public RowAppender setBytes(int column, byte[] value) {
            sum += value.length;
            return this;
        }

        @Override
        public RowAppender setTimestamp(int column, Instant value) {
            sum += value.getEpochSecond();
            return this;
        }

        @Override
        public RowAppender setDecimal(int column, BigDecimal value) {
            sum += value.scale();
            return this;
        }

        @Override
        public RowAppender setValue(int column, Object value) {
            sum += read(value);
            return this;
        }

        @Override
        public RowAppender setNull(int column) {
            sum++;
            return this;
        }

        @Override
        public int columnIndex(String name) {
            int i = schema.indexOf(name);
            if (i < 0) {
                throw new IllegalArgumentException("table " + schema.tableName() + " has no column '" + name + "'");
            }
            return i;
        }

        @Override
        public void endRow() {
            sum++;
        }

        @Override
        public void cancelRow() {
            sum--;
        }
    }
}
