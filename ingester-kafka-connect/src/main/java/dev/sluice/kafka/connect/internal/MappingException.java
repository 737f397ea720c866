package dev.sluice.kafka.connect.internal;

/** A record that does not map to a row; the task adds topic, partition and offset. */
public final class MappingException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final String column;

    /**
     * Creates the exception.
     *
     * @param table the target table, or null when not yet known
     * @param column the offending column, or null
     * @param reason what is wrong
     * @param cause the cause, or null
     */
    public MappingException(String table, String column, String reason, Throwable cause) {
        super(reason, cause);
        this.table = table;
        this.column = column;
    }

    /** @return the table, or null */
    public String table() {
        return table;
    }

    /** @return the column, or null */
    public String column() {
        return column;
    }
}
