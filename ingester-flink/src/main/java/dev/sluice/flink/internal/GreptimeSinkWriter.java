package dev.sluice.flink.internal;

import dev.sluice.data.TableSchema;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SchemaCheck;
import dev.sluice.sink.internal.SchemaSpec;
import dev.sluice.sink.internal.ServerTable;
import dev.sluice.sink.internal.SinkSettings;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One parallel instance of the sink: encodes elements into the session's batching writer, and at every checkpoint
 * ({@link #flush}) returns only once every row it took before the barrier is acknowledged by GreptimeDB, so a job
 * restored from that checkpoint misses no row. A failure that outlived the client's retries fails the job with the
 * server's answer; nothing is dropped. Deletes the session holds (to send them together after the writes before
 * them) are sent within the flush interval by a processing-time timer when the stream goes quiet. On start it creates the tables it knows of when they are missing, which
 * checks credentials, database and table options before the first row, and reads the columns of those that exist
 * from the HTTP API ({@link ServerTable}): a column the table disagrees with fails the job before the first row.
 *
 * @param <T> the element type
 */
public final class GreptimeSinkWriter<T> implements SinkWriter<T> {
    private static final Logger LOG = LoggerFactory.getLogger(GreptimeSinkWriter.class);
    private final RowEncoder<T> encoder;
    private final ClientSession session;
    private final int subtask;
    private final org.apache.flink.api.common.typeutils.TypeSerializer<T> copier;
    private final ProcessingTimeService timers;
    /** Whether a timer to send the held deletes is registered. */
    private boolean timerSet;
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
        this.session = ClientSession.open(settings, new FlinkMetrics(context.metricGroup()), encoder.ordered());
        this.copier = context.isObjectReuseEnabled() ? context.createInputSerializer() : null;
        this.timers = context.getProcessingTimeService();
        session.naming("subtask " + subtask, e -> {
            @SuppressWarnings("unchecked")
            T element = (T) e;
            return encoder.describe(element);
        });
        try {
            for (TableSchema t : encoder.tables()) {
                session.prepare(t);
            }
            checkExistingTables(settings, encoder);
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        } catch (InterruptedException e) {
            session.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the GreptimeDB sink started", e);
        }
    }

    /**
     * Reads each table's columns over the HTTP API and fails when one disagrees with what the sink writes. When the
     * default HTTP endpoint cannot be asked, logs a warning and leaves the disagreement to the first batch; an
     * endpoint set by the user that cannot be asked fails the start.
     */
    private static <T> void checkExistingTables(SinkSettings settings, RowEncoder<T> encoder)
            throws IOException, InterruptedException {
        String base = ServerTable.baseUrl(settings);
        if (base == null) {
            return;
        }
        for (TableSchema t : encoder.tables()) {
            List<dev.sluice.sql.ServerColumn> existing;
            try {
                existing = ServerTable.describe(settings, base, t.tableName());
            } catch (IOException e) {
                String what = "cannot read the columns of table " + t.tableName() + " in database "
                        + settings.database() + " from GreptimeDB's HTTP API at " + base + ": " + e.getMessage();
                if (!settings.httpEndpoint().isEmpty()) {
                    throw new IOException("GreptimeDB sink: " + what + ". Set http-endpoint (httpEndpoint(...)) to"
                            + " the server's HTTP address (port 4000 by default), or to 'none' to skip the check", e);
                }
                LOG.warn("GreptimeDB sink: {}. Skipping the start-up check of column types: a column the table"
                        + " disagrees with fails the job at the first batch instead. Set http-endpoint to the"
                        + " server's HTTP address, or to 'none' to silence this warning", what);
                return;
            }
            if (existing == null) {
                continue;
            }
            refuseAppendModeUnderAKey(settings, base, t.tableName(), encoder.primaryKey());
            SchemaSpec spec = SchemaSpec.of(t);
            List<String> problems = SchemaCheck.disagreements(spec, i -> encoder.declaredType(t, i), existing,
                    settings.path());
            if (!problems.isEmpty()) {
                throw new IOException("GreptimeDB sink: table " + t.tableName() + " in database "
                        + settings.database() + " exists and disagrees with the columns this sink writes, so"
                        + " GreptimeDB would refuse every row: " + String.join("; ", problems));
            }
        }
    }

    /**
     * Fails when the sink replaces rows by a key and the existing table keeps every row written to it (append
     * mode): each update would be kept beside the rows it should replace.
     */
    private static void refuseAppendModeUnderAKey(SinkSettings settings, String base, String table,
                                                  List<String> key) throws IOException {
        if (key.isEmpty() || !ServerTable.appendMode(settings, base, table).orElse(false)) {
            return;
        }
        throw new IOException("GreptimeDB sink: table " + table + " in database " + settings.database()
                + " exists in append mode (append_mode = 'true'): it keeps every row written to it, so the Flink"
                + " table's PRIMARY KEY (" + String.join(", ", key) + ") cannot replace a key's row, and each update"
                + " would be kept beside the rows it replaces. Declare no primary key (the tags in option 'tags') to"
                + " add every row, or write to a table without append mode");
    }

    @Override
    public void write(T element, Context context) throws IOException, InterruptedException {
        elements++;
        // The element is kept until its rows are acknowledged, to name it if GreptimeDB refuses it: with object
        // reuse the runtime changes it afterwards, so a copy is kept instead.
        T kept = copier == null ? element : copier.copy(element);
        session.element(elements, kept);
        try {
            encoder.encode(kept, session);
        } catch (ClientSession.BadRowException e) {
            throw new IOException("GreptimeDB sink (subtask " + subtask + ") refused element " + elements
                    + " of this subtask " + (e.column() == null ? "" : "in column " + e.column() + " ") + "before"
                    + " sending: " + e.getMessage() + "; element: " + encoder.describe(element), e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("mapping element " + elements + " of subtask " + subtask + " failed: " + e
                    + "; element: " + encoder.describe(element), e);
        }
        armTimer();
    }

    /**
     * Registers a timer for the held deletes, so that they reach GreptimeDB within the flush interval when no
     * element and no checkpoint follows them. Flink runs the timer on the task's thread, between elements.
     */
    private void armTimer() {
        if (timerSet) {
            return;
        }
        session.heldDueIn().ifPresent(in -> {
            timerSet = true;
            timers.registerTimer(timers.getCurrentProcessingTime() + Math.max(1, in.toMillis()), time -> {
                timerSet = false;
                session.sendHeldWhenDue();
                armTimer();
            });
        });
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
