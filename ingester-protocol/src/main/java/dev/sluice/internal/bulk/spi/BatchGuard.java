package dev.sluice.internal.bulk.spi;

/** Entered around every change of a writer's batch, so that closing the writer never frees memory in use. */
public interface BatchGuard {
    /**
     * Enters; a producer thread holds the writer from now until {@link #exit(int)}.
     *
     * @throws IllegalStateException when the writer is closed or completed (nothing is entered)
     */
    void enter();

    /**
     * Exits; frees the writer's memory if it was closed meanwhile. The batch's row count travels with every exit,
     * so the writer knows it without asking the codec when the batch is sent.
     *
     * @param rows the rows the batch holds now
     */
    void exit(int rows);
}
