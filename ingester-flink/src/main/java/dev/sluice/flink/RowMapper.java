package dev.sluice.flink;

import dev.sluice.data.RowAppender;
import java.io.Serializable;

/**
 * Fills one GreptimeDB row from a stream element, value by value, with no per-row arrays or boxes. Look column
 * indexes up once (they follow the order of the {@link dev.sluice.data.TableSchema} given to the sink builder):
 *
 * <pre>{@code
 * RowMapper<Metric> m = (e, row) -> row.setString(0, e.host()).setDouble(1, e.cpu()).setLong(2, e.epochMillis());
 * }</pre>
 *
 * <p>Do not call {@code endRow} or {@code cancelRow}: the sink ends the row when the mapper returns. A value that
 * does not fit its column throws {@link dev.sluice.data.InvalidDataException}, which fails the job naming the
 * element, table, column and row. The mapper runs while the table's open batch is held: keep it short.
 *
 * @param <T> the element type
 */
@FunctionalInterface
public interface RowMapper<T> extends Serializable {
    /**
     * Sets the row's values.
     *
     * @param element the stream element
     * @param row the row being built
     */
    void map(T element, RowAppender row);
}
