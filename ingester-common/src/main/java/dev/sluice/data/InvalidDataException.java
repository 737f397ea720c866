package dev.sluice.data;

/**
 * A value, row or schema that GreptimeDB would reject, found before anything was sent.
 *
 * <p>Thrown by {@link TableSchema.Builder#build()} and {@link Table#addRow(Object...)}. A rejected row is not
 * added: the table keeps exactly the rows it had before the call and can take further rows.
 */
public final class InvalidDataException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String column;
    private final int row;
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param table the table concerned
     * @param column the column concerned, or null when the problem is not about one column
     * @param row the zero-based row index, or -1 when the problem is not about one row
     * @param reason what is wrong, in words
     */
    public InvalidDataException(String table, String column, int row, String reason) {
        super(describe(table, column, row, reason));
        this.table = table;
        this.column = column;
        this.row = row;
        this.reason = reason;
    }

    private static String describe(String table, String column, int row, String reason) {
        StringBuilder sb = new StringBuilder("table '").append(table).append('\'');
        if (column != null) {
            sb.append(", column '").append(column).append('\'');
        }
        if (row >= 0) {
            sb.append(", row ").append(row);
        }
        return sb.append(": ").append(reason).toString();
    }

    /**
     * Returns the table concerned.
     *
     * @return the table name
     */
    public String table() {
        return table;
    }

    /**
     * Returns the column concerned.
     *
     * @return the column name, or null when the problem is not about one column
     */
    public String column() {
        return column;
    }

    /**
     * Returns the row concerned.
     *
     * @return the zero-based row index, or -1 when the problem is not about one row
     */
    public int row() {
        return row;
    }

    /**
     * Returns what is wrong, without the table, column and row the message leads with (for callers that name the
     * place in their own terms, such as a file's line).
     *
     * @return the reason, in words
     */
    public String reason() {
        return reason;
    }
}
