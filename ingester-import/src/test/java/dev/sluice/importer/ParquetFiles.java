package dev.sluice.importer;

import dev.sluice.importer.internal.source.HadoopFreeReadOptions;
import dev.sluice.importer.internal.source.ParquetCodecs;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Writes Parquet files for tests with parquet-java's example writer, and reads their footers, without Hadoop on
 * the class path: the builder and the reader are reached through method handles, because their overloads taking
 * Hadoop's {@code Path} and {@code Configuration} do not compile without Hadoop's classes.
 */
public final class ParquetFiles {
    private static final MethodHandle BUILDER;
    private static final MethodHandle WITH_CONF;
    private static final MethodHandle READER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            BUILDER = l.findStatic(ExampleParquetWriter.class, "builder",
                    MethodType.methodType(ExampleParquetWriter.Builder.class, OutputFile.class));
            WITH_CONF = l.findVirtual(ParquetWriter.Builder.class, "withConf",
                    MethodType.methodType(ParquetWriter.Builder.class, ParquetConfiguration.class));
            READER = l.findConstructor(ParquetFileReader.class,
                    MethodType.methodType(void.class, InputFile.class, ParquetReadOptions.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ParquetFiles() {
    }

    /**
     * Writes a file.
     *
     * @param file where
     * @param schema the schema in Parquet's text form ({@code message m { ... }})
     * @param codec page compression
     * @param version data page version
     * @param rowsPerGroup rows per row group
     * @param rows fills the rows: called with a factory of groups and a sink for them
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, String schema, CompressionCodecName codec, ParquetProperties.WriterVersion version,
            int rowsPerGroup, RowsWriter rows) throws IOException {
        MessageType type = MessageTypeParser.parseMessageType(schema);
        try {
            ExampleParquetWriter.Builder b = (ExampleParquetWriter.Builder) BUILDER.invoke(new LocalOutputFile(file));
            b = (ExampleParquetWriter.Builder) WITH_CONF.invoke(b, new PlainParquetConfiguration());
            try (ParquetWriter<Group> w = b.withType(type).withCodecFactory(new ParquetCodecs())
                    .withCompressionCodec(codec).withWriterVersion(version).withDictionaryEncoding(true)
                    .withRowGroupRowCountLimit(rowsPerGroup).build()) {
                SimpleGroupFactory f = new SimpleGroupFactory(type);
                rows.write(f, g -> {
                    try {
                        w.write(g);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Reads a file's row groups from its footer.
     *
     * @param file the file
     * @return its row groups
     * @throws IOException when the file cannot be read
     */
    public static List<BlockMetaData> rowGroups(Path file) throws IOException {
        ParquetReadOptions o = HadoopFreeReadOptions.of(new ParquetCodecs());
        try (ParquetFileReader r = (ParquetFileReader) READER.invoke(new LocalInputFile(file), o)) {
            return r.getRowGroups();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Produces a file's rows. */
    public interface RowsWriter {
        /**
         * Writes rows.
         *
         * @param f makes empty rows of the file's schema
         * @param out takes each row
         */
        void write(SimpleGroupFactory f, Consumer<Group> out);
    }
}
