package dev.sluice.spark.internal;

import dev.sluice.BatchingWriter;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.spark.GreptimeSparkOptions;
import dev.sluice.sink.internal.SinkSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.function.Consumer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructField;

/**
 * Writes one task's rows through Sluice's batching writer. {@link #commit()} returns only when GreptimeDB has
 * acknowledged every row the task took (waiting at most the retry timeout plus one request), and otherwise fails
 * the task with the server's answer; {@link #abort()} stops without waiting. A row the client refuses (a NULL time
 * index, a decimal that does not fit) fails the task at once, naming task, partition, row and column.
 */
final class GreptimeDataWriter implements DataWriter<InternalRow> {
    private final WriteSpec spec;
    private final TableSchema schema;
    private final SparkTypes.Filler filler;
    private final Metrics metrics = new Metrics();
    private final ClientSession session;
    private final String task;
    private long rows;
    /** On the bulk path: the task's rows not yet handed to the session, as one batch, or null. */
    private Table open;
    /** The approximate bytes of {@link #open}'s rows. */
    private long openBytes;
    /** The row number of {@link #open}'s first row, from 1. */
    private long openFirst;
    /** When {@link #open}'s first row was taken ({@link System#nanoTime()}). */
    private long openSince;
    private final int batchRows;
    private final long batchBytes;
    private final long flushIntervalNanos;

    GreptimeDataWriter(WriteSpec spec, int partition, long taskId, long epoch) {
        this.spec = spec;
        this.schema = spec.table().toSchema();
        this.filler = new SparkTypes.Filler(spec.struct(), schema);
        this.task = "task " + taskId + " (partition " + partition + (epoch >= 0 ? ", epoch " + epoch : "") + ")";
        this.session = ClientSession.open(spec.options().sink(), metrics, false);
        session.naming(task, r -> describe((InternalRow) r));
        BatchingWriter.Config batching = session.batching();
        this.batchRows = batching.maxBatchRows();
        this.batchBytes = batching.maxBatchBytes();
        this.flushIntervalNanos = batching.flushInterval().toNanos();
    }

    /**
     * Writes a row. Spark may reuse the row object (and the memory its text lies in) for the next row, so a row the
     * session keeps after this call (see {@link ClientSession#keepsRows()}: on the regular path, to single out a row
     * GreptimeDB refuses) is copied first. On the bulk path the values go from Spark's row straight into the task's
     * own batch, with no copy of the row, and the batch goes to the session whole once it is full (as the batching
     * writer's batches are: {@code batchRows}, {@code batchBytes}, or {@code flushInterval} after its first row,
     * checked at each row) or the task's input ends.
     */
    @Override
    public void write(InternalRow record) throws IOException {
        rows++;
        if (!session.keepsRows()) {
            batch(record);
            return;
        }
        InternalRow row = record.copy();
        session.element(rows, row);
        RowFill fill = new RowFill(filler);
        fill.row = row;
        try {
            session.insert(schema, fill);
        } catch (ClientSession.BadRowException e) {
            throw refused(e.column(), e.getMessage(), row, e);
        } catch (ArithmeticException e) {
            throw tooFar(row, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing row " + rows + " of " + task, e);
        } catch (IOException e) {
            throw undelivered(e);
        }
    }

    /** Adds a row to the task's own batch, and hands the batch to the session once it is full or due. */
    private void batch(InternalRow record) throws IOException {
        if (open == null) {
            open = Table.from(schema, batchRows);
            openFirst = rows;
            openSince = System.nanoTime();
        }
        RowAppender a = open.appender();
        try {
            openBytes += filler.fill(record, a);
            a.endRow();
        } catch (InvalidDataException e) {
            a.cancelRow();
            throw refused(e.column(), e.getMessage(), record, e);
        } catch (ArithmeticException e) {
            a.cancelRow();
            throw tooFar(record, e);
        }
        if (open.rowCount() >= batchRows || openBytes >= batchBytes
                || System.nanoTime() - openSince >= flushIntervalNanos) {
            send();
        }
    }

    /** Hands the task's own batch, if it has rows, to the session. */
    private void send() throws IOException {
        Table t = open;
        if (t == null) {
            return;
        }
        open = null;
        openBytes = 0;
        try {
            session.insert(t, openFirst, openFirst + t.rowCount() - 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing row " + rows + " of " + task, e);
        } catch (IOException e) {
            throw undelivered(e);
        }
    }

    /** A row the client refused before sending, naming it and the column. */
    private IOException refused(String column, String why, InternalRow row, Exception e) {
        return new IOException("GreptimeDB cannot take row " + rows + " of " + task + " for table "
                + schema.tableName() + ", column " + column + ": " + why + ". The row: " + describe(row), e);
    }

    /** A timestamp outside the nanosecond column's range. */
    private IOException tooFar(InternalRow row, ArithmeticException e) {
        return new IOException("GreptimeDB cannot take row " + rows + " of " + task + " for table "
                + schema.tableName() + ": a timestamp does not fit the column's nanoseconds (years 1677 to 2262)."
                + " The row: " + describe(row), e);
    }

    /**
     * Writes the task's rows, then waits until GreptimeDB has acknowledged all of them: Spark reads the task's metrics
     * when its input ends and before {@link #commit()}, on batch and micro-batch writes alike, so they are final.
     */
    @Override
    public void writeAll(Iterator<InternalRow> records) throws IOException {
        DataWriter.super.writeAll(records);
        flush();
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        flush();
        return new Committed(task, rows);
    }

    private void flush() throws IOException {
        send();
        try {
            session.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + task + " waited for GreptimeDB's acknowledgements", e);
        } catch (IOException e) {
            throw undelivered(e);
        }
    }

    @Override
    public void abort() {
        session.close();
    }

    @Override
    public void close() {
        session.close();
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return Metrics.of(metrics.snapshot());
    }

    /** A delivery failure, naming the task, the endpoints and how long rows are retried and waited for. */
    private IOException undelivered(IOException e) {
        SinkSettings s = spec.options().sink();
        return new IOException(task + " could not deliver its rows for table " + schema.tableName()
                + " to GreptimeDB at " + String.join(", ", s.endpoints()) + " (a batch is retried for up to "
                + GreptimeSparkOptions.RETRY_TIMEOUT.name() + " = " + seconds(s.deliveryTimeout())
                + ", and the task waits up to " + seconds(s.flushBound()) + " for acknowledgements): "
                + e.getMessage(), e);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private String describe(InternalRow row) {
        StringBuilder b = new StringBuilder("[");
        StructField[] fs = spec.struct().fields();
        for (int i = 0; i < fs.length; i++) {
            b.append(i == 0 ? "" : ", ").append(fs[i].name()).append('=')
                    .append(row.isNullAt(i) ? "null" : SparkTypes.json(row.get(i, fs[i].dataType()), fs[i].dataType()));
        }
        return b.append(']').toString();
    }

    /** Sets a Sluice row's values from the Spark row it holds. */
    private static final class RowFill implements Consumer<RowAppender> {
        private final SparkTypes.Filler filler;
        private InternalRow row;

        RowFill(SparkTypes.Filler filler) {
            this.filler = filler;
        }

        @Override
        public void accept(RowAppender a) {
            filler.fill(row, a);
        }
    }

    /**
     * A task's rows, all acknowledged.
     *
     * @param task the task
     * @param rows rows written
     */
    record Committed(String task, long rows) implements WriterCommitMessage {
        private static final long serialVersionUID = 1L;
    }
}
