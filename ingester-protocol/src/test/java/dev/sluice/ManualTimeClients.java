package dev.sluice;

import dev.sluice.internal.send.ManualTime;

/**
 * Clients whose writes' deadlines, timeouts and backoff run on a {@link ManualTime}: the test reaches the client's
 * test hook (a package-private constructor, not API) from here, in the client's package. Tests of those deadlines
 * then move the clock instead of waiting on the real one, so a loaded machine cannot make them late.
 *
 * <p>The clock covers regular writes' delivery deadlines and retry backoff, streams' replays and the wait for their
 * answer, and bulk batches' deadlines, timeouts and reopenings. Each regular attempt's gRPC deadline stays on the
 * real clock (gRPC times it): a test on the manual clock keeps the request timeout long and fails attempts with
 * answers (injected errors, a stopped server) rather than with that deadline.
 */
public final class ManualTimeClients {
    private ManualTimeClients() {
    }

    /**
     * Creates a client whose writes' timers run on the given time; health checks, batching writers' flush
     * intervals and shutdown waits run on the client's own timer.
     *
     * @param options the options
     * @param time the clock and timer of writes' deadlines, timeouts, backoff and stream reopenings
     * @return the client
     */
    public static GreptimeDB create(GreptimeOptions options, ManualTime time) {
        return new GreptimeDB(options, time, time);
    }
}
