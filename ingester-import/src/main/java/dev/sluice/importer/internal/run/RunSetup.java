package dev.sluice.importer.internal.run;

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
 * @param settings what the run takes from the options
 * @param inputs the inputs, in order
 * @param state the resume state (its entries change as requests are answered; the state itself stays)
 * @param rejects the rejects file, or null
 * @param mapping the mapping options
 * @param bulk whether rows go through the bulk path
 * @param appendMode whether the table keeps every row
 * @param rows how the inputs' records become rows
 */
public record RunSetup(Settings settings, List<Inputs.Input> inputs, State state, Rejects rejects, Mapping mapping,
        boolean bulk, boolean appendMode, Rows rows) {
    /**
     * Fixes the inputs' list.
     */
    public RunSetup {
        inputs = List.copyOf(inputs);
    }

    /**
     * What the run takes from the options.
     *
     * @param batch rows per batch ({@code --batch})
     * @param inFlight unanswered batches per writer ({@code --in-flight})
     * @param parallelism inputs read and sent at once ({@code --parallelism})
     * @param sample rows the types were inferred from ({@code --sample}), for advice and line protocol's samples
     * @param skipBadRows whether a bad row is rejected and the import goes on ({@code --on-error skip}) rather than
     *     stopping there
     * @param maxErrors rows rejected before the import stops ({@code --max-errors}), or null for no limit
     * @param quiet whether notes and rejected rows stay off standard error ({@code --quiet})
     * @param timeoutSeconds how long the run waits for the last answers ({@code --timeout})
     */
    public record Settings(int batch, int inFlight, int parallelism, int sample, boolean skipBadRows, Long maxErrors,
            boolean quiet, int timeoutSeconds) {
    }

    /** How the inputs' records become rows: of one planned table, or of a table per line protocol measurement. */
    public sealed interface Rows permits OneTable, Measurements {
    }

    /** Opens an input's records. */
    @FunctionalInterface
    public interface Opener {
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
    public record OneTable(Plan plan, Sampled sampled, int sampledInput, String sampledName, Opener open)
            implements Rows {
    }

    /**
     * Line protocol: rows of one table per measurement (or of {@code --table}).
     *
     * @param precision the timestamps' units per second
     * @param columns the columns every reader of the import shares
     */
    public record Measurements(long precision, LineProtocolTables.Columns columns) implements Rows {
    }
}
