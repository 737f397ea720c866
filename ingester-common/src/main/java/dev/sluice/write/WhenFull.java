package dev.sluice.write;

/**
 * What a call does when a limit is reached: the client-wide byte budget ({@code GreptimeOptions.limitPolicy})
 * or a bulk writer's unanswered batches ({@code BulkWrite.Config.whenFull}). One enum for every limit.
 */
public enum WhenFull {
    /** Wait for room, first come first served, at most the limit's wait; then fail. */
    Block,
    /** Fail at once. */
    FailFast
}
