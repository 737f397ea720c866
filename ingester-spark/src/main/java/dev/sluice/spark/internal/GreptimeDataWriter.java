package dev.sluice.spark.internal;

import dev.sluice.data.RowAppender;
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
    private final SparkTypes.Setter[] setters;
    /** Fills Sluice's row from the row being written when the session does not keep it. */
    private final RowFill inPlace;
    private final Metrics metrics = new Metrics();
    private final ClientSession session;
    private final String task;
    private long rows;

    GreptimeDataWriter(WriteSpec spec, int partition, long taskId, long epoch) {
        this.spec = spec;
        this.schema = spec.table().toSchema();
        this.setters = SparkTypes.setters(spec.struct(), schema);
        this.inPlace = new RowFill(setters);
        this.task = "task " + taskId + " (partition " + partition + (epoch >= 0 ? ", epoch " + epoch : "") + ")";
        this.session = ClientSession.open(spec.options().sink(), metrics, false);
        session.naming(task, r -> describe((InternalRow) r));
    }

    /**
     * Writes a row. Spark may reuse the row object (and the memory its text lies in) for the next row, so a row the
     * session keeps after this call (see {@link ClientSession#keepsRows()}: on the regular path, to single out a row
     * GreptimeDB refuses) is copied first. On the bulk path the values go from Spark's row straight into the open
     * batch's columns, with no copy of the row.
     */
    @Override
    public void write(InternalRow record) throws IOException {
        rows++;
        boolean kept = session.keepsRows();
        InternalRow row = kept ? record.copy() : record;
        session.element(rows, kept ? row : null);
        RowFill fill = kept ? new RowFill(setters) : inPlace;
        fill.row = row;
        try {
            session.insert(schema, fill);
        } catch (ClientSession.BadRowException e) {
            throw new IOException("GreptimeDB cannot take row " + rows + " of " + task + " for table "
                    + schema.tableName() + ", column " + e.column() + ": " + e.getMessage() + ". The row: "
                    + describe(row), e);
        } catch (ArithmeticException e) {
            throw new IOException("GreptimeDB cannot take row " + rows + " of " + task + " for table "
                    + schema.tableName() + ": a timestamp does not fit the column's nanoseconds (years 1677 to 2262)."
                    + " The row: " + describe(row), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing row " + rows + " of " + task, e);
        } catch (IOException e) {
            throw undelivered(e);
        }
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

    /** Sets a Sluice row's values from a Spark row, column by column, with the converters chosen for the write. */
    private static final class RowFill implements Consumer<RowAppender> {
        private final SparkTypes.Setter[] setters;
        private InternalRow row;

        RowFill(SparkTypes.Setter[] setters) {
            this.setters = setters;
        }

        @Override
        public void accept(RowAppender a) {
            InternalRow r = row;
            for (int i = 0; i < setters.length; i++) {
                setters[i].set(r, i, a);
            }
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
