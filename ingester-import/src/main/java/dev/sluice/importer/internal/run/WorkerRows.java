package dev.sluice.importer.internal.run;

import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.source.RecordSource;
import java.io.IOException;

/** What one worker turns its inputs' records into, input after input. */
interface WorkerRows extends AutoCloseable {
    /**
     * Opens an input: its records and the rows they become.
     *
     * @param index the input's index among the inputs
     * @param in the input
     * @return its rows
     * @throws IOException when it cannot be opened
     */
    InputRows open(int index, Inputs.Input in) throws IOException;

    /** Waits for the worker's requests to be answered. */
    void finish();

    @Override
    void close();

    /** The rows one input's records become: appended record by record, sent request by request. */
    interface InputRows {
        /** @return the input's records */
        RecordSource source();

        /**
         * Appends the reader's current record as a row (or rows).
         *
         * @param r the reader, at the record
         * @return null when the record was added; otherwise why not ({@link #badColumn()} names the column, if one)
         */
        String append(InputReader r);

        /** @return the column the last record refused by {@link #append} was refused for, or null */
        String badColumn();

        /** @return rows appended since the last request */
        long rows();

        /**
         * Sends the rows appended since the last request, or records at once a request without rows.
         *
         * @param r the reader (its tracker and rejected records)
         * @param end the position of the request's last record
         * @param last whether the request ends the input
         */
        void send(InputReader r, long end, boolean last);
    }
}
