package dev.sluice.importer.internal.run;

import dev.sluice.importer.internal.cli.ImportOptions;
import dev.sluice.importer.internal.plan.Mapping;
import dev.sluice.importer.internal.plan.Plan;
import dev.sluice.importer.internal.report.Rejects;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.plan.LineProtocolTables;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.source.Sampled;
import dev.sluice.importer.internal.state.State;
import java.io.IOException;
import java.util.List;

/**
 * What the setup of an import decided, fixed before the load run starts.
 *
 * @param options the command line
 * @param inputs the inputs, in order
 * @param state the resume state (its entries change as requests are answered; the state itself stays)
 * @param rejects the rejects file, or null
 * @param mapping the mapping options
 * @param bulk whether rows go through the bulk path
 * @param appendMode whether the table keeps every row
 * @param rows how the inputs' records become rows
 */
record RunSetup(ImportOptions options, List<Inputs.Input> inputs, State state, Rejects rejects, Mapping mapping,
        boolean bulk, boolean appendMode, Rows rows) {
    RunSetup {
        inputs = List.copyOf(inputs);
    }

    /** How the inputs' records become rows: of one planned table, or of a table per line protocol measurement. */
    sealed interface Rows permits OneTable, Measurements {
    }

    /** Opens an input's records. */
    @FunctionalInterface
    interface Opener {
        /**
         * Opens an input.
         *
         * @param in the input
         * @return its records
         * @throws IOException when it cannot be read
         */
        RecordSource open(Inputs.Input in) throws IOException;
    }

    /**
     * CSV, TSV, JSON Lines and Parquet: rows of one table.
     *
     * @param plan the plan, from the sample (the run widens its own copy for JSON keys beyond the sample)
     * @param sampled the sampled input's records, read through the sample
     * @param sampledInput the index of the sampled input
     * @param sampledName the name of the sampled input
     * @param open opens the other inputs
     */
    record OneTable(Plan plan, Sampled sampled, int sampledInput, String sampledName, Opener open) implements Rows {
    }

    /**
     * Line protocol: rows of one table per measurement (or of {@code --table}).
     *
     * @param precision the timestamps' units per second
     * @param columns the columns every reader of the import shares
     */
    record Measurements(long precision, LineProtocolTables.Columns columns) implements Rows {
    }
}
