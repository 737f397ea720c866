package dev.sluice.spark;

import dev.sluice.spark.internal.GreptimeTable;
import dev.sluice.spark.internal.WriteOptions;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code greptimedb} data source: {@code df.write.format("greptimedb").option("endpoints", "host:4001")
 * .option("table", "cpu").mode("append").save()}, and {@code df.writeStream.format("greptimedb")}. The table is
 * created when missing, checked against the DataFrame when it exists; see {@link GreptimeSparkOptions} for every
 * option. {@code mode("overwrite")} truncates the table first.
 */
public final class GreptimeDataSource implements TableProvider, DataSourceRegister {
    /** Creates the source (Spark does, through {@code META-INF/services}). */
    public GreptimeDataSource() {
    }

    @Override
    public String shortName() {
        return "greptimedb";
    }

    /**
     * Writes take the DataFrame's schema; reading is not offered.
     *
     * @param options the options
     * @return never
     */
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        throw new UnsupportedOperationException("the greptimedb source writes only; read GreptimeDB through its"
                + " MySQL or PostgreSQL protocol with Spark's jdbc source");
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        WriteOptions o = WriteOptions.parse(properties, null);
        return new GreptimeTable(o.table(), schema, properties, true);
    }
}
