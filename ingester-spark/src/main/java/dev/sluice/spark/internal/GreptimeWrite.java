package dev.sluice.spark.internal;

import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.data.TableSchema;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.StructType;

/**
 * One planned write: the table is checked or created when it is built (planning), a requested truncation or range
 * deletion runs when the job starts, and every task writes through its own {@link GreptimeDataWriter}. Batch and
 * micro-batch writes commit when every task committed, and a task commits only when all its rows are
 * acknowledged.
 */
public final class GreptimeWrite implements Write, BatchWrite, StreamingWrite {
    private final WriteSpec spec;
    private final Predicate[] deleteFirst;

    /**
     * Plans a write.
     *
     * @param options the options
     * @param table the table's name, or null to take it from the options
     * @param struct the DataFrame's schema
     * @param deleteFirst rows to delete before any row is written (an always-true predicate truncates), or null
     */
    public GreptimeWrite(Map<String, String> options, String table, StructType struct, Predicate[] deleteFirst) {
        WriteOptions o = WriteOptions.parse(options, table);
        TableSchema schema = TablePlanner.plan(o, struct);
        this.spec = new WriteSpec(o, SchemaSpec.of(schema), struct);
        this.deleteFirst = deleteFirst;
    }

    @Override
    public String description() {
        return "GreptimeDB table " + spec.options().table() + " (" + spec.options().sink().path() + " path)";
    }

    @Override
    public BatchWrite toBatch() {
        return this;
    }

    @Override
    public StreamingWrite toStreaming() {
        if (deleteFirst != null) {
            throw new UnsupportedOperationException("a streaming write to GreptimeDB appends; it cannot overwrite");
        }
        return this;
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return Metrics.supported();
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        if (deleteFirst != null) {
            RowDeleter.delete(spec.options(), deleteFirst);
        }
        return new Factory(spec);
    }

    /**
     * Spark's commit coordinator lets one attempt of each partition commit (speculative attempts write the same
     * rows, which overwrite each other on keyed tables).
     *
     * @return true
     */
    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        // Every task's rows are acknowledged by the time it committed.
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        // Rows of committed tasks stay stored: GreptimeDB has no transactions across requests.
    }

    @Override
    public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
        return new Factory(spec);
    }

    @Override
    public void commit(long epochId, WriterCommitMessage[] messages) {
        // The epoch's rows are acknowledged: every task committed only after its flush.
    }

    @Override
    public void abort(long epochId, WriterCommitMessage[] messages) {
        // The epoch is replayed from the checkpoint; keyed tables end with the same rows.
    }

    /** Creates the tasks' writers on the executors. */
    private record Factory(WriteSpec spec) implements DataWriterFactory, StreamingDataWriterFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
            return new GreptimeDataWriter(spec, partitionId, taskId, -1);
        }

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
            return new GreptimeDataWriter(spec, partitionId, taskId, epochId);
        }
    }
}
