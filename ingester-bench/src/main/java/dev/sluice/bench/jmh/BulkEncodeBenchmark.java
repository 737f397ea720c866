package dev.sluice.bench.jmh;

import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import dev.sluice.bench.workload.Workload;
import dev.sluice.bulk.internal.ArrowColumnSink;
import dev.sluice.bulk.internal.ArrowSupport;
import dev.sluice.bulk.internal.ArrowTypes;
import dev.sluice.bulk.internal.FlightMessages;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.model.RowWriter;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.write.RequestEncoder;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rows per second on one thread to build and serialize one batch of 65,536 rows: the bulk path (rows into
 * Arrow vectors, unload with the chosen IPC compression, FlightData bytes) against the regular path (rows
 * into a {@link Table}, direct protobuf encoding). Both take the same row values through the same checks.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "--add-opens=java.base/java.nio=ALL-UNNAMED"})
public class BulkEncodeBenchmark {
    static final int ROWS = 65_536;

    /** Which row shape to build. */
    @Param({"logs", "metrics"})
    public String workload;

    /** Arrow IPC body compression of the bulk batch (the regular path ignores it). */
    @Param({"none", "zstd"})
    public String compression;

    private Object[][] rows;
    private TableSchema schema;
    private BufferAllocator allocator;
    private VectorSchemaRoot root;
    private ArrowColumnSink[] sinks;
    private CompressionCodec codec;
    private byte[] headerBytes;
    private byte[] regularBuffer;

    /** Materialises the rows once, so only building and serializing is measured. */
    @Setup(Level.Trial)
    public void setup() {
        Workload wl = Workload.named(workload, 42);
        schema = wl.schema();
        Table t = wl.batch(0, ROWS);
        rows = new Object[ROWS][];
        for (int r = 0; r < ROWS; r++) {
            Object[] row = new Object[schema.columnCount()];
            for (int c = 0; c < row.length; c++) {
                row[c] = schema.column(c).dataType().isStringBacked() ? t.column(c).getString(r)
                        : schema.column(c).dataType().isDoubleBacked() ? (Object) t.column(c).getDouble(r)
                        : (Object) t.column(c).getLong(r);
            }
            rows[r] = row;
        }
        allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 4L << 30).newChildAllocator("bench", 0, Long.MAX_VALUE);
        root = VectorSchemaRoot.create(ArrowTypes.schema(schema), allocator);
        sinks = new ArrowColumnSink[schema.columnCount()];
        for (int i = 0; i < sinks.length; i++) {
            FieldVector v = root.getVector(i);
            v.setInitialCapacity(ROWS);
            v.allocateNew();
            sinks[i] = new ArrowColumnSink(v);
        }
        codec = compression.equals("zstd")
                ? CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD)
                : NoCompressionCodec.INSTANCE;
        headerBytes = RequestHeader.newBuilder().setDbname("public").build().toByteArray();
        regularBuffer = new byte[new RequestEncoder(headerBytes, WriteOp.Insert, List.of(t)).size() + 4096];
    }

    /** Frees the vectors. */
    @TearDown(Level.Trial)
    public void tearDown() {
        root.close();
        allocator.close();
    }

    /** Where gRPC would copy a message's bytes; here they are only counted. */
    private static final class CountingSink extends java.io.OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }

    /**
     * Bulk: rows into reused Arrow vectors, unload (+compression), FlightData bytes written out as gRPC drains
     * them (from Arrow memory, in chunks).
     *
     * @return message size
     * @throws IOException never
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long arrowBatch() throws IOException {
        for (FieldVector v : root.getFieldVectors()) {
            v.reset();
        }
        for (ArrowColumnSink s : sinks) {
            s.unbind();
        }
        for (int r = 0; r < ROWS; r++) {
            RowWriter.write(schema, sinks, r, rows[r]);
        }
        for (ArrowColumnSink s : sinks) {
            s.finish(ROWS);
        }
        root.setRowCount(ROWS);
        BulkMessage m = FlightMessages.batchMessage(
                new VectorUnloader(root, true, codec, true).getRecordBatch(), 1, DirectHandOff.NONE);
        CountingSink sink = new CountingSink();
        try {
            m.writeTo(sink);
        } finally {
            m.release();
        }
        return sink.count;
    }

    /**
     * Floor: reads every value once and encodes each text to UTF-8, the work both paths must do before storing
     * anything.
     *
     * @return a checksum
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long readRowsOnly() {
        long sum = 0;
        for (int r = 0; r < ROWS; r++) {
            Object[] row = rows[r];
            for (Object v : row) {
                if (v instanceof String) {
                    sum += ((String) v).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                } else if (v instanceof Number) {
                    sum += ((Number) v).longValue();
                }
            }
        }
        return sum;
    }

    /**
     * Regular: rows into a Table, direct protobuf encoding.
     *
     * @return bytes written
     * @throws IOException never (array output)
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int regularEncode() throws IOException {
        Table t = Table.from(schema, ROWS);
        for (int r = 0; r < ROWS; r++) {
            t.addRow(rows[r]);
        }
        RequestEncoder e = new RequestEncoder(headerBytes, WriteOp.Insert, List.of(t.complete()));
        return e.encode(regularBuffer);
    }
}
