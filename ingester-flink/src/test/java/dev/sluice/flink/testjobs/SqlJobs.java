package dev.sluice.flink.testjobs;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.TableConfigOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** Shared set-up of the SQL jobs these tests run on a MiniCluster in the test's own JVM. */
public final class SqlJobs {
    /** Run by the first element of {@link #numbers}, in the job (the MiniCluster shares this JVM). */
    private static volatile Runnable atFirstElement = () -> { };

    private SqlJobs() {
    }

    /**
     * @param slots task slots of the one task manager
     * @return a MiniCluster for a test class
     */
    public static MiniClusterExtension miniCluster(int slots) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(slots).build());
    }

    /**
     * @param parallelism the job's parallelism
     * @return a table environment in UTC whose jobs fail for good at their first failure
     */
    public static StreamTableEnvironment withoutRestarts(int parallelism) {
        return StreamTableEnvironment.create(env(parallelism), settingsInUtc());
    }

    /**
     * A table environment as {@link #withoutRestarts(int)}, with the view {@code numbers} (column {@code f0}, 0 to
     * count - 1) whose first element runs an action first, once the job's writers have started.
     *
     * @param parallelism the job's parallelism
     * @param count the elements
     * @param first what the first element does (a fault switched on at the server, for example)
     * @return the table environment
     */
    public static StreamTableEnvironment withNumbers(int parallelism, long count, Runnable first) {
        atFirstElement = first;
        StreamExecutionEnvironment env = env(parallelism);
        StreamTableEnvironment t = StreamTableEnvironment.create(env, settingsInUtc());
        DataStream<Long> numbers = env.fromSequence(0, count - 1).map(i -> {
            if (i == 0) {
                atFirstElement.run();
            }
            return i;
        }).returns(Types.LONG);
        t.createTemporaryView("numbers", numbers);
        return t;
    }

    private static StreamExecutionEnvironment env(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    private static EnvironmentSettings settingsInUtc() {
        Configuration conf = new Configuration();
        conf.set(TableConfigOptions.LOCAL_TIME_ZONE, "UTC");
        return EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(conf).build();
    }

    /**
     * @param t a failure
     * @return the messages of the failure and all its causes, separated by " | "
     */
    public static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c).append(" | ");
        }
        return all.toString();
    }
}
