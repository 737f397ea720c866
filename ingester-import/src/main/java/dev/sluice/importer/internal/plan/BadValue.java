package dev.sluice.importer.internal.plan;

/** A value that does not fit its column; the message is the reason. */
public final class BadValue extends Exception {
    private static final long serialVersionUID = 1L;
    private final String column;

    /**
     * Creates the exception.
     *
     * @param column the table column
     * @param reason why the value does not fit
     */
    public BadValue(String column, String reason) {
        super(reason);
        this.column = column;
    }

    /** @return the table column */
    public String column() {
        return column;
    }
}
