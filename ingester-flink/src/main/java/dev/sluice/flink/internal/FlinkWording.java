package dev.sluice.flink.internal;

import dev.sluice.sink.internal.SinkSettings;
import java.util.Locale;

/** The Flink connector's words in the client session's failures: its option names and what Flink does next. */
public final class FlinkWording {
    private FlinkWording() {
    }

    /**
     * The wording of a sink whose job runs under the given restart strategy.
     *
     * @param restartStrategy the job's {@code restart-strategy.type} when the sink could read it where it was
     *     planned, else empty (a failure then says what happens conditionally)
     * @return the wording
     */
    public static SinkSettings.Wording of(String restartStrategy) {
        return new SinkSettings.Wording("sink.retry.timeout", afterFailure(restartStrategy),
                "restart the job: it resumes from its last checkpoint");
    }

    /** What Flink does after a write failed for good, as far as the sink knows the job's restart strategy. */
    private static String afterFailure(String restartStrategy) {
        String strategy = restartStrategy == null ? "" : restartStrategy.strip().toLowerCase(Locale.ROOT);
        if (strategy.isEmpty()) {
            return "Flink restarts the job from its last checkpoint if its restart strategy allows"
                    + " (restart-strategy.type); otherwise the job stays failed: start it again once the server"
                    + " answers";
        }
        if (strategy.equals("none") || strategy.equals("off") || strategy.equals("disable")) {
            return "restart-strategy.type is " + strategy + ": the job stays failed; start it again (from its last"
                    + " checkpoint or a savepoint) once the server answers";
        }
        return "Flink restarts the job from its last checkpoint while its restart strategy (restart-strategy.type "
                + strategy + ") allows";
    }
}
