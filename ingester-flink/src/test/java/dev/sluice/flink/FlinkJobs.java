package dev.sluice.flink;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** Shared set-up of the MiniCluster jobs. */
final class FlinkJobs {
    private FlinkJobs() {
    }

    /** @return a MiniCluster of one task manager with 4 slots */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());
    }

    /**
     * An environment that checkpoints every second and restarts a failed job from its last checkpoint.
     *
     * @param parallelism the job's parallelism
     * @param restarts restarts allowed (0: a failure fails the job)
     * @return the environment
     */
    static StreamExecutionEnvironment env(int parallelism, int restarts) {
        StreamExecutionEnvironment env = envWithoutCheckpoints(parallelism, restarts);
        env.enableCheckpointing(1000);
        return env;
    }

    /**
     * An environment that takes no checkpoints, and otherwise restarts as {@link #env(int, int)} does: a sink writer
     * then raises a failed batch only when it takes an element or at the end of its input, never while a checkpoint
     * holds the events Flink sends its source.
     *
     * @param parallelism the job's parallelism
     * @param restarts restarts allowed (0: a failure fails the job)
     * @return the environment
     */
    static StreamExecutionEnvironment envWithoutCheckpoints(int parallelism, int restarts) {
        Configuration conf = new Configuration();
        if (restarts > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    /**
     * Passes elements through and throws once, in subtask 0, after a checkpoint completed and some more elements
     * went by: the job then restarts from that checkpoint and replays what came after it.
     *
     * @param <T> the element type
     */
    static final class FailOnceAfterCheckpoint<T> extends RichMapFunction<T, T> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        /** Failures thrown so far, in this JVM (the MiniCluster runs in it). */
        static final AtomicInteger FIRED = new AtomicInteger();
        private transient boolean checkpointed;
        private transient long sinceCheckpoint;
        private transient int subtask;

        @Override
        public void open(OpenContext ctx) {
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        @Override
        public T map(T value) {
            if (checkpointed && subtask == 0 && ++sinceCheckpoint == 2_000 && FIRED.compareAndSet(0, 1)) {
                throw new IllegalStateException("injected failure after a checkpoint");
            }
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }
}
