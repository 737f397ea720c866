/**
 * Internals shared by Sluice's integrations (the Kafka Connect sink, the Flink connector, {@code sluice import}):
 * opening the client from settings ({@link dev.sluice.sink.internal.SinkClients}), finding the rows of a refused
 * batch ({@link dev.sluice.sink.internal.RefusedRowIsolator}), sending deletes after the writes before them
 * ({@link dev.sluice.sink.internal.OrderedDeletes}) and waiting on a full buffer
 * ({@link dev.sluice.sink.internal.Backpressure}).
 *
 * <p>Not API: these classes change with the integrations that use them, without notice or compatibility between
 * releases. Programs use the client ({@code dev.sluice}) instead.
 */
package dev.sluice.sink.internal;
