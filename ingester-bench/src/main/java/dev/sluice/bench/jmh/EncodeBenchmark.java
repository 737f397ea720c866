package dev.sluice.bench.jmh;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.data.Table;
import dev.sluice.write.WriteOp;
import dev.sluice.bench.workload.Workload;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.write.ReferenceEncoder;
import dev.sluice.internal.write.RequestEncoder;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Regular-path encoding, rows per second on one thread: the direct column-to-wire encoder against building
 * the generated protobuf messages (one Value per cell) and serialising them. Both start from the same
 * completed {@link Table} and write into the same reused buffer.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class EncodeBenchmark {
    static final int ROWS = 1_000;
    /** The smallest batch of the protocol comparison's sweep, where per-request work weighs most. */
    static final int SMALL_ROWS = 50;

    /** Which row shape to encode. */
    @Param({"logs", "metrics"})
    public String workload;

    private Table table;
    private Table small;
    private RequestHeader header;
    private byte[] headerBytes;
    private byte[] buffer;

    /** Builds the table once. */
    @Setup
    public void setup() {
        table = Workload.named(workload, 42).batch(0, ROWS);
        small = Workload.named(workload, 42).batch(0, SMALL_ROWS);
        header = RequestHeader.newBuilder().setDbname("public").build();
        headerBytes = header.toByteArray();
        buffer = new byte[new RequestEncoder(headerBytes, WriteOp.Insert, List.of(table)).size() + 1024];
    }

    /**
     * Direct encoding.
     *
     * @return bytes written
     * @throws IOException never (array output)
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int direct() throws IOException {
        RequestEncoder e = new RequestEncoder(headerBytes, WriteOp.Insert, List.of(table));
        return e.encode(buffer);
    }

    /**
     * Direct encoding of a 50-row table: what a request costs besides its rows (header, schema, sizing setup).
     *
     * @return bytes written
     * @throws IOException never (array output)
     */
    @Benchmark
    @OperationsPerInvocation(SMALL_ROWS)
    public int directSmallBatch() throws IOException {
        RequestEncoder e = new RequestEncoder(headerBytes, WriteOp.Insert, List.of(small));
        return e.encode(buffer);
    }

    /**
     * Generated builders, then serialisation.
     *
     * @return bytes written
     * @throws IOException never (array output)
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int generated() throws IOException {
        GreptimeRequest r = ReferenceEncoder.build(header, WriteOp.Insert, List.of(table));
        CodedOutputStream out = CodedOutputStream.newInstance(buffer);
        r.writeTo(out);
        return out.getTotalBytesWritten();
    }
}
