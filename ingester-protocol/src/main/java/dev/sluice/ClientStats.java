package dev.sluice;

import java.util.List;

/**
 * A snapshot of a client's running totals.
 *
 * @param wireBytesSent message bytes put on the wire by every path (after gRPC compression)
 * @param retries regular-write attempts after the first
 * @param requestsInFlight regular writes sent (or waiting to retry) and not yet completed
 * @param bytesInFlight bytes of the client-wide budget in use
 * @param availableEndpoints endpoints not ejected
 * @param bulkAllocatedBytes off-heap bytes this client's bulk writers hold: batches being built or unanswered, and
 *     each open writer's spare buffers for packing its next small batches (up to its {@code maxInFlightRequests}
 *     + 1, freed when the writer closes or its memory cap needs the room)
 */
public record ClientStats(long wireBytesSent, long retries, int requestsInFlight, long bytesInFlight,
                          List<String> availableEndpoints, long bulkAllocatedBytes) {
}
