package dev.sluice.importer.internal.run;

import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.plan.BadValue;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.source.Format;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.target.Client;
import dev.sluice.importer.internal.target.RefusedRows;
import java.io.IOException;
import java.util.List;

/**
 * CSV, TSV, JSON Lines and Parquet: rows of one table through a batch sink of its schema, opened with the worker's
 * first input.
 */
final class OneTableRows implements WorkerRows {
    private final LoadRun run;
    private final RunSetup.OneTable one;
    private Client.BatchSink sink;

    OneTableRows(LoadRun run, RunSetup.OneTable one) {
        this.run = run;
        this.one = one;
    }

    @Override
    public InputRows open(int index, Inputs.Input in) throws IOException {
        if (sink == null) {
            // Kept rows: a refused batch is narrowed from them, an append-mode batch's time range read.
            sink = run.client.open(run.plan().schema(), run.bulk, run.o.batch(), run.o.inFlight(), run.ctx,
                    run.narrower != null || run.appendMode);
        }
        return new Input(in, index == run.sampledInput ? one.sampled() : one.open().open(in), sink);
    }

    @Override
    public void finish() {
        if (sink != null) {
            sink.finish();
        }
    }

    @Override
    public void close() {
        if (sink != null) {
            try {
                sink.close();
            } catch (RuntimeException ignored) {
                // failures were reported by the batches
            }
        }
    }

    /** The records of one CSV, TSV, JSON Lines or Parquet input, bound to the plan's columns. */
    private final class Input implements InputRows {
        final Inputs.Input in;
        final RecordSource src;
        final Client.BatchSink sink;
        final long importBase;
        final List<String> columns;
        Plan pl = run.plan();
        TableSchema schema = pl.schema();
        int n = schema.columnCount();
        final int ts = schema.timestampIndex();
        int known = -1;
        int[] bind;
        boolean[] unknown;
        String badColumn;
        /** The lines of the open batch's rows, kept while refused requests are narrowed; else null. */
        long[] lines = run.narrower != null ? new long[256] : null;
        int kept;

        Input(Inputs.Input in, RecordSource src, Client.BatchSink sink) {
            this.in = in;
            this.src = src;
            this.sink = sink;
            this.columns = src.columns();
            this.importBase = run.state.importTimeNanos + in.index() * 1_000_000_000_000L;
        }

        @Override
        public RecordSource source() {
            return src;
        }

        @Override
        public String badColumn() {
            return badColumn;
        }

        @Override
        public long rows() {
            return sink.rows();
        }

        @Override
        public String append(InputReader r) {
            if (columns.size() != known) {
                columnsChanged();
            }
            if (!run.bulk && in.format() == Format.JSONL) {
                widenForNewKeys(r);
            }
            String reason = append(sink.appender(), r.position);
            if (reason == null && lines != null) {
                if (kept == lines.length) {
                    lines = java.util.Arrays.copyOf(lines, kept * 2);
                }
                lines[kept++] = src.line();
            }
            return reason;
        }

        @Override
        public void send(InputReader r, long end, boolean last) {
            run.send(sink, r.tracker, end, r.rejectedInBatch, last, in, takeOrigin());
        }

        /** Where the open batch's rows came from (null when not kept); the next batch starts afresh. */
        RefusedRows.Origin takeOrigin() {
            if (lines == null) {
                return null;
            }
            long[] l = java.util.Arrays.copyOf(lines, kept);
            kept = 0;
            return new RefusedRows.Origin() {
                @Override
                public long line(int table, int row) {
                    return l[row];
                }

                @Override
                public String raw(Table t, int table, int row) {
                    return RefusedRows.json(t, row);
                }
            };
        }

        private void columnsChanged() {
            known = columns.size();
            bind = pl.bind(columns);
            unknown = new boolean[known];
            for (int c = 0; c < known; c++) {
                unknown[c] = !pl.knows(columns.get(c));
            }
            if (in.format() != Format.JSONL) {
                for (int c = 0; c < known; c++) {
                    if (unknown[c]) {
                        throw new ImportFailure("'" + in.name() + "': column '" + columns.get(c) + "' is not in the"
                                + " table's columns (" + String.join(", ", pl.cols().stream().map(Plan.Col::name)
                                .toList()) + "): name it with --skip, or import this file on its own", null);
                    }
                }
            }
        }

        /**
         * A key first seen after the sample: the regular path adds it as a column. The rows before this one are
         * sent with the schema they were read with, and this row starts a batch of the wider schema.
         */
        private void widenForNewKeys(InputReader r) {
            String added = null;
            for (int c = 0; c < known; c++) {
                if (unknown[c] && src.value(c) != null) {
                    if (sink.rows() > 0) {
                        r.flush(r.position - 1, false);
                    }
                    pl = run.widen(columns.get(c), src.value(c));
                    added = columns.get(c);
                }
            }
            if (added != null) {
                sink.reschema(pl.schema());
                schema = pl.schema();
                n = schema.columnCount();
                bind = pl.bind(columns);
                for (int c = 0; c < known; c++) {
                    unknown[c] = !pl.knows(columns.get(c));
                }
            }
        }

        /**
         * Converts the current record into a row of the appender.
         *
         * @param record the record's position (it times the row when the import's time is its time index)
         * @return null when the row was added; otherwise why not ({@link #badColumn} names the column, if one)
         */
        private String append(RowAppender a, long record) {
            badColumn = null;
            try {
                Plan p = pl;
                int[] b = bind;
                for (int c = 0; c < n; c++) {
                    int s = b[c];
                    if (s < 0) {
                        if (c == ts) {
                            if (!p.importTime()) {
                                throw new BadValue(schema.column(c).name(), "the time index is missing");
                            }
                            a.setLong(c, importBase + record);
                        }
                        continue;
                    }
                    Object v = src.value(s);
                    if (v == null) {
                        if (c == ts) {
                            throw new BadValue(schema.column(c).name(), "the time index is empty");
                        }
                        continue;
                    }
                    p.values().set(a, c, v);
                }
                if (in.format() == Format.JSONL) { // other formats refuse unknown columns up front
                    for (int c = 0; c < known; c++) {
                        if (unknown[c] && src.value(c) != null) {
                            throw new BadValue(columns.get(c), "key '" + columns.get(c) + "' is not a column of"
                                    + " the table (it was not in the " + run.o.sample() + " sampled rows) and the bulk path"
                                    + " cannot add columns: rerun with --path regular (adds it), a larger --sample, or"
                                    + " --skip it");
                        }
                    }
                }
                a.endRow();
                return null;
            } catch (BadValue bv) {
                a.cancelRow();
                badColumn = bv.column();
                return bv.getMessage();
            } catch (InvalidDataException ide) {
                a.cancelRow();
                badColumn = ide.column();
                return ide.column() != null ? "column '" + ide.column() + "': " + ide.reason() : ide.reason();
            } catch (IllegalArgumentException | ArithmeticException ex) {
                a.cancelRow();
                return ex.getMessage();
            }
        }
    }
}
