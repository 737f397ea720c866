package dev.sluice.flink.internal;

import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SchemaCheck;
import dev.sluice.sink.internal.SchemaSpec;
import java.io.IOException;
import java.io.Serializable;

/**
 * Turns one stream element into writes and deletes on a {@link ClientSession}.
 *
 * @param <T> the element type
 */
public interface RowEncoder<T> extends Serializable {
    /** Called once in each writer before the first element (build schemas, look up indexes). */
    void open();

    /**
     * Writes the element.
     *
     * @param element the element
     * @param session where rows go
     * @throws IOException when the session failed
     * @throws ClientSession.BadRowException when a value does not fit its column
     * @throws InterruptedException when interrupted
     * @throws Exception from a user's mapper
     */
    void encode(T element, ClientSession session) throws Exception;

    /**
     * Describes an element for an error message.
     *
     * @param element the element
     * @return a short description
     */
    default String describe(T element) {
        String s = String.valueOf(element);
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    /** @return the tables this encoder writes, known before the first element (created at start when missing) */
    default java.util.List<dev.sluice.data.TableSchema> tables() {
        return java.util.List.of();
    }

    /**
     * Says where a written column's type comes from, for a message about a table that disagrees with it.
     *
     * @param table the table, one of {@link #tables()}
     * @param column the column's index in it
     * @return e.g. {@code Int64 in the sink's TableSchema}
     */
    default String declaredType(dev.sluice.data.TableSchema table, int column) {
        return SchemaCheck.typeName(SchemaSpec.of(table).columns().get(column)) + " in the sink's TableSchema";
    }

    /**
     * The key by which a later write replaces a row the sink wrote before (a Flink table's primary key): a table
     * that keeps every row written to it (append mode) cannot take such writes.
     *
     * @return the key's columns, or empty when the sink only adds rows
     */
    default java.util.List<String> primaryKey() {
        return java.util.List.of();
    }

    /** @return whether writes of one table must keep their order (upserts and deletes of one key) */
    default boolean ordered() {
        return false;
    }
}
