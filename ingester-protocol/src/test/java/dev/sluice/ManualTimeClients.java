package dev.sluice;

import dev.sluice.internal.send.ManualTime;

/**
 * Clients whose bulk writers' deadlines, timeouts and backoff run on a {@link ManualTime}: the test reaches the
 * client's test hook (a package-private constructor, not API) from here, in the client's package. Tests of those
 * deadlines then move the clock instead of waiting on the real one, so a loaded machine cannot make them late.
 */
public final class ManualTimeClients {
    private ManualTimeClients() {
    }

    /**
     * Creates a client whose bulk timers run on the given time; everything else runs on the client's own timer.
     *
     * @param options the options
     * @param time the clock and timer of bulk batches' deadlines, timeouts and stream reopenings
     * @return the client
     */
    public static GreptimeDB create(GreptimeOptions options, ManualTime time) {
        return new GreptimeDB(options, time, time);
    }
}
