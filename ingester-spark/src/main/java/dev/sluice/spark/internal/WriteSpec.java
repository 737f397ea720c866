package dev.sluice.spark.internal;

import dev.sluice.sink.internal.SchemaSpec;
import java.io.Serializable;
import org.apache.spark.sql.types.StructType;

/**
 * What every task of a write needs, sent from the driver to the executors.
 *
 * @param options the checked options
 * @param table the table's columns as the tasks write them
 * @param struct the DataFrame's schema (the rows' layout)
 */
public record WriteSpec(WriteOptions options, SchemaSpec table, StructType struct) implements Serializable {
    private static final long serialVersionUID = 1L;
}
