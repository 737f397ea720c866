/**
 * Internals shared by Sluice's integrations (the Kafka Connect sink, the Flink and Spark connectors,
 * {@code sluice import}): the client session of the Flink and Spark writers with its settings and its start-up check
 * of an existing table ({@link dev.sluice.sink.internal.ClientSession}, {@link dev.sluice.sink.internal.SinkSettings},
 * {@link dev.sluice.sink.internal.SchemaCheck}), opening the client from settings ({@link dev.sluice.sink.internal.SinkClients}), finding the rows of a refused
 * batch ({@link dev.sluice.sink.internal.RefusedRowIsolator}), sending deletes after the writes before them
 * ({@link dev.sluice.sink.internal.OrderedDeletes}, per row, used by every integration) and waiting on a full buffer
 * ({@link dev.sluice.sink.internal.Backpressure}).
 *
 * <p>Not API: these classes change with the integrations that use them, without notice or compatibility between
 * releases. Programs use the client ({@code dev.sluice}) instead.
 */
package dev.sluice.sink.internal;
