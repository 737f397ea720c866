/**
 * The Sluice client for GreptimeDB: {@link dev.sluice.GreptimeDB} with regular, stream, batching and bulk writes
 * ({@link dev.sluice.bulk}), and {@link dev.sluice.metrics} for reporting what it does.
 *
 * <p>Requiring this module gives the table model and write outcomes of {@code dev.sluice.common} too. Bulk
 * writes are implemented by the {@code dev.sluice.bulk} module (artifact {@code ingester-bulk}, which brings
 * Arrow), found as a service when the first bulk writer is opened: put it on the module path (it needs no
 * {@code requires}). Micrometer is needed only by a program that uses
 * {@link dev.sluice.metrics.MicrometerMetricsSink}. Packages named {@code internal} are not exported; the one
 * exception is the bulk codec's plug-in interface, exported to the bulk module alone.
 */
// gRPC and protobuf publish automatic modules only; the qualified exports name dev.sluice.bulk, which is built
// after this module. (javac's "not indirectly exported" warning about MicrometerMetricsSink's Micrometer type
// is expected: Micrometer is optional on purpose, see below.)
@SuppressWarnings({"requires-automatic", "module"})
module dev.sluice.protocol {
    requires transitive dev.sluice.common;
    // The generated wire messages and stubs; not transitive, not API.
    requires dev.sluice.wire;
    // Optional, and not transitive (javac would then demand it from every user at compile time): a user of
    // MicrometerMetricsSink "requires micrometer.core", as they name its types themselves.
    requires static micrometer.core;
    requires io.grpc;
    requires io.grpc.stub;
    requires io.grpc.protobuf;
    requires io.grpc.netty.shaded;
    requires com.google.protobuf;
    // The generated health-check FutureStub returns Guava's ListenableFuture.
    requires com.google.common;
    requires com.github.luben.zstd_jni;
    requires org.slf4j;

    exports dev.sluice;
    exports dev.sluice.bulk;
    exports dev.sluice.metrics;

    // The one package ingester-bulk plugs in through: the codec it provides (BulkCodec: build, unload, schema,
    // answers) and the memory helpers it borrows. The send engine and the writers stay the client's own.
    exports dev.sluice.internal.bulk.spi to dev.sluice.bulk;
    uses dev.sluice.internal.bulk.spi.BulkCodec;
}
