package dev.sluice.flink.internal;

import java.io.IOException;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * One parallel instance of the sink: encodes elements into the session's batching writer, and at every checkpoint
 * ({@link #flush}) returns only once every row it took before the barrier is acknowledged by GreptimeDB, so a job
 * restored from that checkpoint misses no row. A failure that outlived the client's retries fails the job with the
 * server's answer; nothing is dropped. On start it creates the tables it knows of when they are missing, which
 * checks credentials, database and table options before the first row.
 *
 * @param <T> the element type
 */
public final class GreptimeSinkWriter<T> implements SinkWriter<T> {
    private final RowEncoder<T> encoder;
    private final SluiceSession session;
    private final int subtask;
    private long elements;

    /**
     * Opens the writer.
     *
     * @param settings connection and batching
     * @param encoder element to rows
     * @param context Flink's writer context
     */
    public GreptimeSinkWriter(SinkSettings settings, RowEncoder<T> encoder, WriterInitContext context)
            throws IOException {
        this.encoder = encoder;
        this.subtask = context.getTaskInfo().getIndexOfThisSubtask();
        encoder.open();
        this.session = SluiceSession.open(settings, new FlinkMetrics(context.metricGroup()), encoder.ordered());
        try {
            for (dev.sluice.data.TableSchema t : encoder.tables()) {
                session.prepare(t);
            }
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        } catch (InterruptedException e) {
            session.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the GreptimeDB sink started", e);
        }
    }

    @Override
    public void write(T element, Context context) throws IOException, InterruptedException {
        elements++;
        try {
            encoder.encode(element, session);
        } catch (SluiceSession.BadRowException e) {
            throw new IOException("GreptimeDB sink (subtask " + subtask + ") refused element " + elements
                    + " of this subtask " + (e.column() == null ? "" : "in column " + e.column() + " ") + "before"
                    + " sending: " + e.getMessage() + "; element: " + encoder.describe(element), e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("mapping element " + elements + " of subtask " + subtask + " failed: " + e
                    + "; element: " + encoder.describe(element), e);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        session.flush();
    }

    @Override
    public void close() {
        session.close();
    }
}
