package dev.sluice.kafka.connect;

import org.apache.kafka.connect.errors.DataException;

/**
 * A record that can never be written: its value does not fit its column, it lacks a time index, GreptimeDB
 * refused it (type conflict, too large)... The message names topic, partition, offset, table and column (where
 * known). The sink hands it to Connect's dead-letter queue when one is configured; otherwise the task fails with it.
 */
public final class RecordRejectedException extends DataException {
    private static final long serialVersionUID = 1L;
    private final String topic;
    private final int partition;
    private final long offset;
    private final String table;
    private final String column;

    /**
     * Creates the exception.
     *
     * @param topic the record's topic
     * @param partition its partition
     * @param offset its offset
     * @param table the target table, or null when it could not be determined
     * @param column the offending column, or null when not known
     * @param reason what is wrong
     * @param cause the underlying exception, or null
     */
    public RecordRejectedException(String topic, int partition, long offset, String table, String column,
                                   String reason, Throwable cause) {
        super("record topic=" + topic + " partition=" + partition + " offset=" + offset
                + " table=" + (table == null ? "?" : table) + " column=" + (column == null ? "?" : column) + ": " + reason,
                cause);
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.table = table;
        this.column = column;
    }

    /** @return the record's topic */
    public String topic() {
        return topic;
    }

    /** @return the record's partition */
    public int partition() {
        return partition;
    }

    /** @return the record's offset */
    public long offset() {
        return offset;
    }

    /** @return the target table, or null */
    public String table() {
        return table;
    }

    /** @return the offending column, or null */
    public String column() {
        return column;
    }
}
