package dev.sluice.kafka.connect;

import dev.sluice.kafka.connect.internal.AppendModeCheck;
import dev.sluice.kafka.connect.internal.TableNamer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Connect sink that writes records into GreptimeDB through Sluice's batching writer, at least once.
 * Configuration: {@link GreptimeSinkConfig}. Every task gets the same settings; Connect spreads partitions.
 */
public final class GreptimeSinkConnector extends SinkConnector {
    private static final Logger LOG = LoggerFactory.getLogger(GreptimeSinkConnector.class);
    private Map<String, String> props;
    private List<String> appendModeTables = List.of();

    /** Creates the connector (Connect does this). */
    public GreptimeSinkConnector() {
    }

    @Override
    public void start(Map<String, String> props) {
        GreptimeSinkConfig cfg = new GreptimeSinkConfig(props);
        if (cfg.appendModeHint()) {
            LOG.warn("GreptimeDB sink: table.hints asks for append_mode=true. Delivery is at least once: after a"
                    + " crash or rebalance some records are written again, and append-mode tables keep both copies."
                    + " Ordinary tables absorb redelivery (the last write of a row, by tags and time index, wins).");
        }
        this.props = Map.copyOf(props);
        this.appendModeTables = checkAppendMode(cfg, props);
    }

    /** Warns about existing target tables in append mode, when the HTTP API and the tables are known. */
    private static List<String> checkAppendMode(GreptimeSinkConfig cfg, Map<String, String> props) {
        String url = cfg.getString(GreptimeSinkConfig.HTTP_URL);
        String topics = props.getOrDefault("topics", "");
        if (url.isEmpty() || topics.isBlank() || !cfg.getString(GreptimeSinkConfig.TABLE_FIELD).isEmpty()) {
            return List.of();
        }
        TableNamer namer = new TableNamer(cfg.getString(GreptimeSinkConfig.TABLE_FORMAT),
                cfg.getString(GreptimeSinkConfig.TABLE_REGEX), cfg.getString(GreptimeSinkConfig.TABLE_REPLACEMENT));
        List<String> tables = new ArrayList<>();
        for (String t : topics.split(",")) {
            if (!t.isBlank()) {
                tables.add(namer.tableFor(t.trim()));
            }
        }
        List<String> append = new AppendModeCheck(url, cfg.database(), cfg.username(),
                cfg.password()).appendModeTables(tables);
        for (String t : append) {
            LOG.warn("GreptimeDB sink: table '{}' is in append mode. Delivery is at least once: records written again"
                    + " after a crash, rebalance or retry are stored twice in it.", t);
        }
        return List.copyOf(append);
    }

    /** @return the target tables found in append mode when the connector started */
    List<String> appendModeTables() {
        return appendModeTables;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return GreptimeSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> out = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            out.add(props);
        }
        return out;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return GreptimeSinkConfig.CONFIG_DEF;
    }

    @Override
    public String version() {
        return Version.VERSION;
    }
}
