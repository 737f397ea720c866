/**
 * The Sluice data model: tables and their schemas ({@link dev.sluice.data}), per-call settings, write outcomes and
 * status codes ({@link dev.sluice.write}) and the record-mapping annotations ({@link dev.sluice.mapping}). It
 * needs no other module: building tables brings no transport, protobuf or gRPC onto the module graph.
 *
 * <p>Only those three packages are exported to everyone. The {@code internal} packages (value coercion and column
 * storage, record mapping) are exported only to the Sluice modules built on them, and are not API.
 */
// The qualified exports name sibling modules that are not built yet when this one compiles.
@SuppressWarnings("module")
module dev.sluice.common {
    exports dev.sluice.data;
    exports dev.sluice.write;
    exports dev.sluice.mapping;
    exports dev.sluice.internal.model to dev.sluice.protocol, dev.sluice.bulk;
}
