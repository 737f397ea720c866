package dev.sluice.kafka.connect;

import dev.sluice.kafka.connect.internal.ColumnTypeOverrides;
import dev.sluice.kafka.connect.internal.RecordMapper;
import dev.sluice.kafka.connect.internal.SinkSession;
import dev.sluice.kafka.connect.internal.SluiceClient;
import dev.sluice.kafka.connect.internal.TableNamer;
import dev.sluice.kafka.connect.internal.TaskMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink task: maps records to rows, hands them to Sluice's batching writer, and commits only offsets whose
 * records (and every earlier one of their partition) GreptimeDB acknowledged or Connect's dead-letter reporter
 * acknowledged (a record too large for the dead-letter producer fails the task instead, since Connect would report
 * its refused send as a success). See {@link GreptimeSinkConfig} for the settings.
 */
public final class GreptimeSinkTask extends SinkTask {
    private static final Logger LOG = LoggerFactory.getLogger(GreptimeSinkTask.class);
    private SinkSession session;
    private TaskMetrics metrics;

    /** Creates the task (Connect does this). */
    public GreptimeSinkTask() {
    }

    @Override
    public String version() {
        return Version.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        GreptimeSinkConfig cfg = new GreptimeSinkConfig(props);
        if (cfg.appendModeHint()) {
            LOG.warn("GreptimeDB sink task: tables are created with append_mode=true; records redelivered after a"
                    + " failure or rebalance will be stored twice in them");
        }
        ErrantRecordReporter reporter;
        try {
            reporter = context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            reporter = null;
        }
        RecordMapper mapper = new RecordMapper(new RecordMapper.Settings(
                new TableNamer(cfg.getString(GreptimeSinkConfig.TABLE_FORMAT), cfg.getString(GreptimeSinkConfig.TABLE_REGEX),
                        cfg.getString(GreptimeSinkConfig.TABLE_REPLACEMENT)),
                cfg.getString(GreptimeSinkConfig.TABLE_FIELD), cfg.getList(GreptimeSinkConfig.TAGS),
                cfg.getString(GreptimeSinkConfig.TS_FIELD), cfg.getString(GreptimeSinkConfig.TS_UNIT),
                cfg.getString(GreptimeSinkConfig.TS_COLUMN),
                ColumnTypeOverrides.parse(cfg.getString(GreptimeSinkConfig.COLUMN_TYPES))));
        metrics = TaskMetrics.create(context);
        SluiceClient client = SluiceClient.open(cfg, metrics.meterRegistry());
        session = new SinkSession(client, mapper, reporter, context, cfg.getBoolean(GreptimeSinkConfig.DELETES),
                Duration.ofMillis(cfg.getLong(GreptimeSinkConfig.FLUSH_TIMEOUT)),
                cfg.getLong(GreptimeSinkConfig.REDELIVERY_BACKOFF), cfg.dlqMaxRecordBytes(), cfg.dlqContextHeaders());
        metrics.bind(session);
        LOG.info("GreptimeDB sink task started: write path {} ({}), endpoints {}, database {}, dead-letter queue {}",
                client.bulk() ? "bulk" : "regular", client.bulk() ? "Arrow Flight DoPut" : "gRPC row inserts",
                cfg.endpoints(), cfg.database(), reporter == null ? "none"
                        : "configured (records up to " + cfg.dlqMaxRecordBytes() + " bytes)");
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        session.open(partitions);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        session.put(records);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        metrics.publishPending();
        return session.preCommit(currentOffsets);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (session != null) {
            session.close(partitions);
        }
    }

    @Override
    public void stop() {
        try {
            if (session != null) {
                session.stop();
            }
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
    }
}
