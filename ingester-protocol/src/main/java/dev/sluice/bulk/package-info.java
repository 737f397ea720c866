/**
 * Bulk writes over Arrow Flight {@code DoPut}: {@link dev.sluice.bulk.BulkStreamWriter}, its batches
 * ({@link dev.sluice.bulk.TableBufferRoot}) and settings ({@link dev.sluice.bulk.BulkWrite}). Opened with
 * {@code GreptimeDB.bulkStreamWriter}; the implementation is in the {@code dev.sluice:ingester-bulk} artifact
 * (module {@code dev.sluice.bulk}), which brings Arrow and plugs into the client when it is on the class or
 * module path.
 */
package dev.sluice.bulk;
