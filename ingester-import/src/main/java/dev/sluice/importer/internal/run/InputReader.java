package dev.sluice.importer.internal.run;

import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.state.State;
import java.io.IOException;

/** Reads one input record by record into its rows: the one loop of every format. */
final class InputReader {
    private final LoadRun run;
    final Inputs.Input in;
    final RecordSource src;
    final WorkerRows.InputRows rows;
    final Tracker tracker;
    /** The position an earlier run imported the input to. */
    final long skipTo;
    /** The records read so far. */
    long counted;
    /** The current record's position (see {@link RecordSource#position}). */
    long position;
    long rejectedInBatch;
    /** Records read and not yet added to {@link Stats#rowsRead} (added once per batch, not per record). */
    long read;
    boolean eof;

    InputReader(LoadRun run, Inputs.Input in, State.Entry e, WorkerRows.InputRows rows) {
        this.run = run;
        this.in = in;
        this.src = rows.source();
        this.rows = rows;
        this.tracker = new Tracker(e, run.state, run.appendMode, run.stats);
        this.skipTo = e.acked;
    }

    /** Whether a record is in a batch that --in-doubt check found stored. */
    boolean storedAlready(long record) {
        return !tracker.entry.stored.isEmpty() && tracker.entry.storedAlready(record);
    }

    void countRead() {
        if (read > 0) {
            run.stats.rowsRead.addAndGet(read);
            read = 0;
        }
    }

    /**
     * Sends the rows read so far.
     *
     * @param end the position of their last record
     * @param last whether they end the input
     */
    void flush(long end, boolean last) {
        countRead();
        rows.send(this, end, last);
        rejectedInBatch = 0;
    }

    /**
     * Reads the next record and appends it (or rejects it).
     *
     * @return false when the input ends here: its end, an abort point, or a stop
     */
    boolean step() throws IOException {
        long before = position;
        boolean has;
        try {
            has = src.next();
        } catch (RecordSource.BadRecord b) {
            return badRecord(b, before);
        }
        if (!has) {
            eof = true;
            return false;
        }
        if (run.stop.get()) {
            // Read after the abort point (or a failure) of another input: not sent, and not counted, so the
            // state's position stays before it and a rerun reads it again.
            return false;
        }
        position = src.position(++counted);
        if (position <= skipTo || storedAlready(position)) {
            return true;
        }
        read++;
        String reason = rows.append(this);
        if (reason != null) {
            String badColumn = rows.badColumn();
            String where = src.where() + (badColumn != null ? ", column '" + badColumn + "'" : "");
            if (!run.reject(in, src.line(), badColumn, where + ": " + reason, src.raw())) {
                position = before;
                return false;
            }
            rejectedInBatch++;
            return true;
        }
        if (rows.rows() >= run.o.batch()) {
            flush(position, false);
        }
        return true;
    }

    private boolean badRecord(RecordSource.BadRecord b, long before) {
        if (run.stop.get()) {
            return false; // read after another input's abort point: neither counted nor rejected
        }
        position = src.position(++counted);
        if (position <= skipTo || storedAlready(position)) {
            return true;
        }
        read++;
        if (!run.reject(in, b.line(), null, b.description(), b.raw())) {
            position = before;
            return false;
        }
        rejectedInBatch++;
        return true;
    }
}
