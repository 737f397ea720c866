package dev.sluice.flink.internal;

import dev.sluice.data.TableSchema;
import dev.sluice.flink.RowMapper;
import dev.sluice.sink.internal.ClientSession;
import dev.sluice.sink.internal.SchemaSpec;

/**
 * Writes each element as one row of a fixed table through a user's {@link RowMapper}.
 *
 * @param <T> the element type
 */
public final class MapperEncoder<T> implements RowEncoder<T> {
    private static final long serialVersionUID = 1L;
    private final SchemaSpec spec;
    private final RowMapper<T> mapper;
    private final boolean ordered;
    private transient TableSchema schema;

    /**
     * Creates the encoder.
     *
     * @param spec the table
     * @param mapper element to row
     * @param ordered keep the order of writes per table
     */
    public MapperEncoder(SchemaSpec spec, RowMapper<T> mapper, boolean ordered) {
        this.spec = spec;
        this.mapper = mapper;
        this.ordered = ordered;
    }

    /** @return the table this encoder writes */
    public SchemaSpec spec() {
        return spec;
    }

    @Override
    public void open() {
        schema = spec.toSchema();
    }

    @Override
    public java.util.List<TableSchema> tables() {
        return java.util.List.of(schema);
    }

    @Override
    public void encode(T element, ClientSession session) throws Exception {
        session.insert(schema, row -> mapper.map(element, row));
    }

    /**
     * Copies the encoder with another ordering.
     *
     * @param keepOrder keep the order of writes per table
     * @return the copy
     */
    public MapperEncoder<T> withOrdered(boolean keepOrder) {
        return new MapperEncoder<>(spec, mapper, keepOrder);
    }

    @Override
    public boolean ordered() {
        return ordered;
    }
}
