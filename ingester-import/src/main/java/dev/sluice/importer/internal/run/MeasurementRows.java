package dev.sluice.importer.internal.run;

import dev.sluice.importer.internal.plan.BadValue;
import dev.sluice.importer.internal.plan.LineProtocolTables;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.LineProtocol;
import dev.sluice.importer.internal.source.LineProtocolSource;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.target.Client;
import dev.sluice.importer.internal.target.RefusedRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Line protocol: rows of the tables the points' measurements name (or {@code --table}), several tables per
 * request, the columns' types decided once for every worker.
 */
final class MeasurementRows implements WorkerRows {
    private final LoadRun run;
    private final LineProtocolTables tables;
    private final Client.TablesSink sink;

    MeasurementRows(LoadRun run, RunSetup.Measurements m) {
        this.run = run;
        this.tables = new LineProtocolTables(m.precision(), m.columns());
        this.sink = run.client.openTables(run.o.inFlight(), run.ctx);
    }

    @Override
    public InputRows open(int index, Inputs.Input in) throws IOException {
        return new Input(in, new LineProtocolSource(Inputs.open(in, run.stats.rawBytes)), tables, sink);
    }

    @Override
    public void finish() {
        sink.finish();
    }

    @Override
    public void close() {
    }

    /** The points of one line protocol input, added to the worker's tables. */
    private final class Input implements InputRows {
        private final Inputs.Input in;
        private final LineProtocolSource src;
        private final LineProtocolTables tables;
        private final Client.TablesSink sink;
        /** The column of the last point's bad value, or null. */
        private String badColumn;
        /** The lines of the open request's rows per table, kept while refused requests are narrowed; else null. */
        private final Map<String, List<RefusedRows.LineText>> origins = run.narrower != null ? new LinkedHashMap<>() : null;

        Input(Inputs.Input in, LineProtocolSource src, LineProtocolTables tables, Client.TablesSink sink) {
            this.in = in;
            this.src = src;
            this.tables = tables;
            this.sink = sink;
        }

        @Override
        public RecordSource source() {
            return src;
        }

        @Override
        public String append(InputReader r) {
            LineProtocol.Point pt = src.point();
            badColumn = null;
            try {
                tables.add(pt, run.state.importTimeNanos);
            } catch (BadValue bv) {
                badColumn = bv.column();
                return bv.getMessage();
            } catch (IllegalArgumentException | ArithmeticException ex) {
                return ex.getMessage();
            }
            if (origins != null) {
                origins.computeIfAbsent(tables.table(pt), k -> new ArrayList<>())
                        .add(new RefusedRows.LineText(src.line(), src.raw()));
            }
            return null;
        }

        @Override
        public String badColumn() {
            return badColumn;
        }

        @Override
        public long rows() {
            return tables.rows();
        }

        @Override
        public void send(InputReader r, long end, boolean last) {
            run.sendTables(sink, tables, r.tracker, end, r.rejectedInBatch, last, in, origins);
        }
    }
}
