package dev.sluice.write;

/**
 * What a call does when a limit is reached: the client-wide byte budget ({@code GreptimeOptions.whenFull}),
 * a bulk writer's unanswered batches ({@code BulkWrite.Config.whenFull}) or a batching writer's buffer
 * ({@code BatchingWriter.Config.whenFull}). One enum for every limit; each of those configs has a
 * {@code maxBlock} beside it.
 */
public enum WhenFull {
    /** Wait for room, first come first served, at most the config's {@code maxBlock}; then fail. */
    Block,
    /** Fail at once. */
    FailFast
}
