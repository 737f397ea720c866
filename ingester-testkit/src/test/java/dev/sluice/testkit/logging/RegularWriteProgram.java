package dev.sluice.testkit.logging;

import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.RowInsertRequest;
import dev.sluice.internal.wire.RowInsertRequests;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import dev.sluice.testkit.GreptimeTestServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.apache.arrow.memory.RootAllocator;

/**
 * Run in a child JVM by {@link TestkitLoggingTest}: with {@code regular}, starts the testkit, writes one row over
 * {@code Handle} and reads it back, printing {@code stored=N}; with {@code arrow}, opens and closes an Arrow
 * allocator (the control: Arrow's INFO lines do reach the output of this JVM).
 */
public final class RegularWriteProgram {
    private RegularWriteProgram() {
    }

    /**
     * Entry point.
     *
     * @param args {@code regular} or {@code arrow}
     */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("arrow")) {
            new RootAllocator().close();
            System.out.println("allocator closed");
            return;
        }
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            ManagedChannel ch = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
            try {
                GreptimeDatabaseGrpc.newBlockingStub(ch).handle(GreptimeRequest.newBuilder()
                        .setHeader(RequestHeader.newBuilder().setDbname("public"))
                        .setRowInserts(RowInsertRequests.newBuilder().addInserts(RowInsertRequest.newBuilder()
                                .setTableName("t").setRows(Rows.newBuilder()
                                        .addSchema(ColumnSchema.newBuilder().setColumnName("ts")
                                                .setDatatype(ColumnDataType.TIMESTAMP_MILLISECOND)
                                                .setSemanticType(SemanticType.TIMESTAMP))
                                        .addRows(Row.newBuilder().addValues(Value.newBuilder()
                                                .setTimestampMillisecondValue(1))))))
                        .build());
            } finally {
                ch.shutdownNow();
            }
            System.out.println("stored=" + server.rowCount("t"));
        }
    }
}
