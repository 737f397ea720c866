package dev.sluice.internal.bulk.spi;

/**
 * The server's answer to one bulk batch.
 *
 * @param requestId the batch's request id; 0 for the server's greeting
 * @param affectedRows rows the batch wrote
 */
public record BulkAnswer(long requestId, long affectedRows) {
}
